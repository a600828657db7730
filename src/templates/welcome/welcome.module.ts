import { Module } from '@nestjs/common';
import { WelcomePlanner } from './welcome.planner';

@Module({ providers: [WelcomePlanner] })
export class WelcomeModule {}
