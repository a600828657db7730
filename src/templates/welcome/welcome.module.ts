import { Module } from '@nestjs/common';
import { WelcomeTemplate } from './welcome.template';

@Module({ providers: [WelcomeTemplate] })
export class WelcomeModule {}
