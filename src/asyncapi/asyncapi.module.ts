import { Module } from '@nestjs/common';
import { AsyncApiController } from './asyncapi.controller';

/** Serves the AsyncAPI document beside `/health` and `/metrics`. */
@Module({ controllers: [AsyncApiController] })
export class AsyncApiModule {}
