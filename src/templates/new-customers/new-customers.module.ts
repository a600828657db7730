import { Module } from '@nestjs/common';
import { NewCustomersPlanner } from './new-customers.planner';

@Module({ providers: [NewCustomersPlanner] })
export class NewCustomersModule {}
