import { Module } from '@nestjs/common';
import { OrderConfirmationTemplate } from './order-confirmation.template';

@Module({ providers: [OrderConfirmationTemplate] })
export class OrderConfirmationModule {}
