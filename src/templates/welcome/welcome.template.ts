import type { SenderConfig } from '../../config/app-config';
import { USER_SIGNED_UP_V1, type UserSignedUpV1 } from '../../contracts/user-signed-up.v1';
import type { CampaignTemplate, RenderedCampaign } from '../campaign-template';

/**
 * The welcome email for a new user. Personal values travel as recipient attributes and are merged
 * by the vendor at `{{KEY}}` placeholders, so every sign-up shares one subject and body.
 */
export class WelcomeTemplate implements CampaignTemplate<UserSignedUpV1> {
  readonly name = 'welcome';
  readonly eventType = USER_SIGNED_UP_V1;

  render(event: UserSignedUpV1, sender: SenderConfig): RenderedCampaign {
    const { data } = event;
    return {
      content: {
        subject: 'Welcome aboard, {{FIRST_NAME}}',
        preview: 'Your account is ready.',
        body:
          '<p>Hello {{FIRST_NAME}},</p>' +
          '<p>Your {{PLAN}} account is ready. Thank you for signing up.</p>',
        campaignId: 'welcome-v1',
        sender: { from: sender.from, ...(sender.replyTo ? { replyTo: sender.replyTo } : {}) },
        disableTrackingLinks: sender.disableTrackingLinks,
      },
      recipient: {
        name: data.name,
        email: data.email,
        attributes: {
          FIRST_NAME: data.name.split(/\s+/)[0],
          FULL_NAME: data.name,
          PLAN: data.plan ?? 'free',
          USER_ID: data.userId,
        },
      },
    };
  }
}
