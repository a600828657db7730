import { createHash } from 'node:crypto';
import { senderOf } from '../template.renderer';
import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import {
  EMAIL_CAMPAIGN_REQUESTED_V1,
  type EmailCampaignRequestedV1,
} from '../../contracts/email-campaign-requested.v1';
import type { CampaignRequest } from '../../email-api/vendor.types';
import { Planner, type CampaignAction, type CampaignContent } from '../planner';

/**
 * Sends a campaign a service asked for, as it asked. Requests with identical content share a
 * vendor request; the configured sender fills in when the command names none.
 */
@Injectable()
@Planner()
export class CampaignCommandPlanner implements Planner<EmailCampaignRequestedV1> {
  readonly name = 'campaign-command';
  /** A command may mail any address for any purpose: marketing unless it says otherwise. */
  readonly category = 'marketing' as const;
  readonly eventType = EMAIL_CAMPAIGN_REQUESTED_V1;

  constructor(private readonly config: AppConfig) {}

  plan(event: EmailCampaignRequestedV1): CampaignAction {
    const { recipients, ...rest } = event.data as CampaignRequest;
    const content: CampaignContent = {
      ...rest,
      sender: rest.sender?.from ? rest.sender : senderOf(this.config.sender),
    };
    const batchKey = `${this.name}:${createHash('sha256').update(JSON.stringify(content)).digest('hex')}`;
    return { kind: 'campaign', batchKey, content, recipients: recipients.to };
  }
}
