import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { USER_SIGNED_UP_V1, type UserSignedUpV1 } from '../../contracts/user-signed-up.v1';
import { CampaignTemplate } from '../campaign.template';
import { Planner, type CampaignAction } from '../planner';

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
  private readonly template: CampaignTemplate;

  constructor(config: AppConfig) {
    this.template = new CampaignTemplate(__dirname, 'welcome', 'welcome-v1', config);
  }

  plan(event: UserSignedUpV1): CampaignAction {
    const { data } = event;
    return {
      kind: 'campaign',
      batchKey: this.name,
      content: this.template.content,
      recipients: [
        {
          name: data.name,
          email: data.email,
          attributes: this.template.attributes({
            FIRST_NAME: data.name.split(/\s+/)[0],
            FULL_NAME: data.name,
            PLAN: data.plan ?? 'free',
            USER_ID: data.userId,
          }),
        },
      ],
    };
  }
}
