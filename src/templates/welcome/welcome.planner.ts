import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { USER_SIGNED_UP_V1, type UserSignedUpV1 } from '../../contracts/user-signed-up.v1';
import { Planner, type CampaignAction, type CampaignContent } from '../planner';
import { escapeHtml, renderCampaignContent } from '../template.renderer';

/**
 * The welcome email for a new user. Personal values travel as recipient attributes and are merged
 * by the vendor at `{{KEY}}` placeholders, so every sign-up shares one subject and body and so
 * one vendor request.
 */
@Injectable()
@Planner()
export class WelcomePlanner implements Planner<UserSignedUpV1> {
  readonly name = 'welcome';
  readonly eventType = USER_SIGNED_UP_V1;
  private readonly content: CampaignContent;

  constructor(config: AppConfig) {
    this.content = renderCampaignContent(__dirname, 'welcome', 'welcome-v1', config.sender);
  }

  plan(event: UserSignedUpV1): CampaignAction {
    const { data } = event;
    return {
      kind: 'campaign',
      batchKey: this.name,
      content: this.content,
      recipients: [
        {
          name: data.name,
          email: data.email,
          attributes: {
            FIRST_NAME: escapeHtml(data.name.split(/\s+/)[0]),
            FULL_NAME: escapeHtml(data.name),
            PLAN: escapeHtml(data.plan ?? 'free'),
            USER_ID: escapeHtml(data.userId),
          },
        },
      ],
    };
  }
}
