import type { ResultEvent } from './result-event';

export const EMAIL_CAMPAIGN_SENT_V1 = 'email.campaign.sent.v1';

/**
 * `email.campaign.sent.v1`: the vendor accepted a campaign request that carried the source
 * event's recipient. Keyed like the source event.
 */
export type EmailCampaignSentV1 = ResultEvent<
  typeof EMAIL_CAMPAIGN_SENT_V1,
  {
    sourceEventId: string;
    sourceEventType: string;
    template: string;
    /** The vendor's id for the request that carried this event's recipient(s). */
    requestId: string;
    /** All request ids, when the event's recipients needed more than one request. */
    requestIds: string[];
    message: string;
    campaignId?: string;
    /** How many of this event's recipients were sent. */
    recipientCount: number;
    /** How many recipients the vendor request carried in all (shared with other events). */
    batchRecipientCount: number;
    /**
     * Present (true) when an earlier attempt of this send may have reached the vendor too: a
     * crash after the request was written, or an answer lost to a timeout or reset.
     */
    ambiguous?: true;
  }
>;
