import { Equals, IsArray, IsInt, IsOptional, IsString, Min } from 'class-validator';
import type { ResultEvent } from './result-event';

export const EMAIL_CAMPAIGN_SENT_V1 = 'email.campaign.sent.v1';

/** The `data` of `email.campaign.sent.v1`; its decorators are its published JSON Schema. */
export class EmailCampaignSentV1Data {
  @IsString()
  sourceEventId!: string;

  @IsString()
  sourceEventType!: string;

  @IsString()
  template!: string;

  /** The vendor's id for the request that carried this event's recipient(s). */
  @IsString()
  requestId!: string;

  /** Every request id that carried the event's recipients (always; one unless they needed several). */
  @IsArray()
  @IsString({ each: true })
  requestIds!: string[];

  @IsString()
  message!: string;

  @IsOptional()
  @IsString()
  campaignId?: string;

  /**
   * The locale of the copy that was sent, as a canonical BCP 47 tag: the reader's (`de-AT`), the
   * closest one on the way to the default (`de`), or the default copy's own. Set by every
   * template; absent for campaigns requested as commands, whose copy is the requester's.
   */
  @IsOptional()
  @IsString()
  locale?: string;

  /** How many of this event's recipients were sent. */
  @IsInt()
  @Min(0)
  recipientCount!: number;

  /** How many recipients the vendor request carried in all (shared with other events). */
  @IsInt()
  @Min(0)
  batchRecipientCount!: number;

  /**
   * How many of this event's recipients were not sent because they are on the suppression list
   * (no address is ever named). Absent when none was.
   */
  @IsOptional()
  @IsInt()
  @Min(1)
  suppressedCount?: number;

  /**
   * Present (true) when an earlier attempt of this send may have reached the vendor too: a
   * crash after the request was written, or an answer lost to a timeout or reset.
   */
  @IsOptional()
  @Equals(true)
  ambiguous?: true;
}

/**
 * `email.campaign.sent.v1`: the vendor accepted a campaign request that carried the source
 * event's recipient. Keyed like the source event.
 */
export type EmailCampaignSentV1 = ResultEvent<
  typeof EMAIL_CAMPAIGN_SENT_V1,
  EmailCampaignSentV1Data
>;
