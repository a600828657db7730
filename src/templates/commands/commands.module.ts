import { Module } from '@nestjs/common';
import { CampaignCommandPlanner } from './campaign-command.planner';
import { ContactListCommandPlanner } from './contact-list-command.planner';

/** The command events: services that want to drive the vendor directly. */
@Module({ providers: [CampaignCommandPlanner, ContactListCommandPlanner] })
export class CommandsModule {}
