import { Module } from '@nestjs/common';
import { NewCustomersTemplate } from './new-customers.template';

@Module({ providers: [NewCustomersTemplate] })
export class NewCustomersModule {}
