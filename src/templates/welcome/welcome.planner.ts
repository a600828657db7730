import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { USER_SIGNED_UP_V1, type UserSignedUpV1 } from '../../contracts/user-signed-up.v1';
import { CampaignTemplate } from '../campaign.template';
import { Planner, type CampaignAction } from '../planner';

/** The attributes a welcome carries, the keys its copies' `{{KEY}}` may name. */
const WELCOME_ATTRIBUTES = ['FIRST_NAME', 'FULL_NAME', 'PLAN', 'USER_ID'] as const;

/**
 * The welcome email for a new user, in the user's locale. Personal values travel as recipient
 * attributes and are merged by the vendor at `{{KEY}}` placeholders, so every sign-up of one
 * locale shares one subject and body and so one vendor request.
 */
@Injectable()
@Planner()
export class WelcomePlanner implements Planner<UserSignedUpV1> {
  readonly name = 'welcome';
  /** It confirms the account the person has just opened, at their own request. */
  readonly category = 'transactional' as const;
  readonly eventType = USER_SIGNED_UP_V1;
  private readonly template: CampaignTemplate<(typeof WELCOME_ATTRIBUTES)[number]>;

  constructor(config: AppConfig) {
    this.template = new CampaignTemplate(
      {
        dir: __dirname,
        name: 'welcome',
        campaignId: 'welcome-v1',
        attributeKeys: WELCOME_ATTRIBUTES,
      },
      config,
    );
  }

  plan(event: UserSignedUpV1): CampaignAction {
    const { data } = event;
    return {
      kind: 'campaign',
      ...this.template.copyFor(data.locale),
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
