import { Module } from '@nestjs/common';
import { OrderConfirmationPlanner } from './order-confirmation.planner';

@Module({ providers: [OrderConfirmationPlanner] })
export class OrderConfirmationModule {}
