import { Module } from '@nestjs/common';
import { CampaignCommandTemplate } from './campaign-command.template';
import { ContactListCommandTemplate } from './contact-list-command.template';

/** The command events: services that want to drive the vendor directly. */
@Module({ providers: [CampaignCommandTemplate, ContactListCommandTemplate] })
export class CommandsModule {}
