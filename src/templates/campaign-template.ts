import type { SenderConfig } from '../config/app-config';
import type { CampaignRecipient, CampaignRequest } from '../vendor/vendor.types';

/** What a campaign template turns one event into: shared content and one recipient. */
export interface RenderedCampaign {
  /** Everything but the recipients; identical for every event of the same template. */
  content: Omit<CampaignRequest, 'recipients'>;
  recipient: CampaignRecipient;
}

/**
 * A pure mapper from one event type to a campaign send: no I/O, no clock, no randomness, so the
 * same event always renders the same request.
 */
export interface CampaignTemplate<Event> {
  readonly name: string;
  readonly eventType: string;
  render(event: Event, sender: SenderConfig): RenderedCampaign;
}
