import { Global, Module } from '@nestjs/common';
import { Tracing } from './tracing';

/** The service's spans (`Tracing`), for the modules that make them: inbound, delivery, outbound. */
@Global()
@Module({ providers: [Tracing], exports: [Tracing] })
export class TracingModule {}
