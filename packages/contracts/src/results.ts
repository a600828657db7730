/**
 * The result events mailbridge publishes, as plain TypeScript types: CloudEvents 1.0 whose `data`
 * mirrors the service's result contracts (`src/contracts/email-*.v1.ts`;
 * `src/contracts/client-agreement.spec.ts` fails to compile if they drift apart).
 */

export const EMAIL_CAMPAIGN_SENT_V1 = 'email.campaign.sent.v1';
export const EMAIL_CONTACT_LIST_CREATED_V1 = 'email.contact_list.created.v1';
export const EMAIL_DISPATCH_FAILED_V1 = 'email.dispatch.failed.v1';
export const EMAIL_UNSUBSCRIBED_V1 = 'email.unsubscribed.v1';

export const RESULT_TYPES = [
  EMAIL_CAMPAIGN_SENT_V1,
  EMAIL_CONTACT_LIST_CREATED_V1,
  EMAIL_DISPATCH_FAILED_V1,
  EMAIL_UNSUBSCRIBED_V1,
] as const;

export type ResultType = (typeof RESULT_TYPES)[number];

/** The topic of each result type by default (the service's `TOPIC_*` settings move them). */
export const RESULT_TOPICS: Readonly<Record<ResultType, string>> = {
  [EMAIL_CAMPAIGN_SENT_V1]: 'email.campaign.sent.v1',
  [EMAIL_CONTACT_LIST_CREATED_V1]: 'email.contact_list.created.v1',
  [EMAIL_DISPATCH_FAILED_V1]: 'email.dispatch.failed.v1',
  [EMAIL_UNSUBSCRIBED_V1]: 'email.unsubscribed.v1',
};

/** The `source` of every result, unless the service is configured otherwise. */
export const RESULT_SOURCE = 'mailbridge';

/** What every result's `data` says about the event it answers. */
interface AnswersSourceEvent {
  sourceEventId: string;
  sourceEventType: string;
  /** The template that handled the event (one result per event and template). */
  template: string;
}

export interface EmailCampaignSentV1Data extends AnswersSourceEvent {
  /** The vendor's id for the request that carried this event's recipient(s). */
  requestId: string;
  /** All request ids, when the event's recipients needed more than one request. */
  requestIds: string[];
  message: string;
  campaignId?: string;
  /**
   * The locale of the copy that was sent, a canonical BCP 47 tag (`de-AT`; `de` or the default
   * copy's when there was no closer one). Absent for campaigns requested as commands, and in
   * results published before mailbridge wrote it.
   */
  locale?: string;
  /** How many of this event's recipients were sent. */
  recipientCount: number;
  /** How many recipients the vendor request carried in all (shared with other events). */
  batchRecipientCount: number;
  /** How many of this event's recipients are suppressed and were not sent; absent for none. */
  suppressedCount?: number;
  /** Present when an earlier attempt of this send may have reached the vendor too. */
  ambiguous?: true;
}

export interface EmailContactListCreatedV1Data extends AnswersSourceEvent {
  /** The vendor's id of the new list (a UUID). */
  listId: string;
  name: string;
  memberCount: number;
  /** How many members are suppressed and were left out of the list; absent for none. */
  suppressedCount?: number;
  ambiguous?: true;
}

/**
 * The `errorCode`s of `email.dispatch.failed.v1` with their `retriable`: whether redriving the
 * source event later can succeed. A code never changes name or meaning; new ones may be added.
 */
export const DISPATCH_FAILURE_RETRIABLE = {
  INVALID_REQUEST: false,
  VENDOR_REJECTED: false,
  VENDOR_BAD_RESPONSE: false,
  VENDOR_UNAVAILABLE: true,
  AMBIGUOUS_SEND: true,
  INTERNAL_ERROR: true,
} as const satisfies Record<string, boolean>;

export type DispatchFailureCode = keyof typeof DISPATCH_FAILURE_RETRIABLE;

/**
 * The `reasonCode`s of `email.dispatch.failed.v1`, each with the `errorCode` it comes with: a
 * finer cause, added within v1. `SUPPRESSED`: every recipient or member is on the suppression
 * list; nothing was sent.
 */
export const DISPATCH_FAILURE_REASONS = {
  SUPPRESSED: 'INVALID_REQUEST',
} as const satisfies Record<string, DispatchFailureCode>;

export interface EmailDispatchFailedV1Data extends AnswersSourceEvent {
  errorCode: DispatchFailureCode;
  /** A finer cause (`DISPATCH_FAILURE_REASONS`); a string, since later releases may add some. */
  reasonCode?: string;
  /** With `reasonCode` `SUPPRESSED`: how many recipients or members are suppressed. */
  suppressedCount?: number;
  vendorStatus?: number;
  retriable: boolean;
  /** Never personal data or keys. */
  message: string;
  ambiguous?: true;
}

/**
 * `email.unsubscribed.v1`: a reader unsubscribed through a one-click link, for the services that
 * keep customer preferences. It answers no inbound event: its `sourceeventid` is `unsubscribeId`.
 */
export interface EmailUnsubscribedV1Data {
  /** The same in every copy of this unsubscribe's event: deduplicate on it. */
  unsubscribeId: string;
  address: string;
  /** The category of the email whose link was followed. */
  category: 'transactional' | 'marketing';
  /** The mail it stops from now on. */
  scope: 'marketing' | 'all';
  /** RFC 3339. */
  unsubscribedAt: string;
}

/** How the record carried the CloudEvent (CloudEvents Kafka protocol binding). */
export type ContentMode = 'binary' | 'structured';

/** A result as a subscriber receives it: its CloudEvents attributes, its data, its record. */
export interface ResultEvent<Type extends ResultType, Data> {
  specversion: '1.0';
  /** Deterministic: the same source event and template always give the same id (deduplicate on it). */
  id: string;
  type: Type;
  source: string;
  /** RFC 3339. */
  time: string;
  /** The id of the inbound event this result answers. */
  sourceeventid: string;
  datacontenttype?: string;
  data: Data;
  /** The Kafka record: its key (the source event's key), mode and trace context. */
  record: { key: string | null; mode: ContentMode; traceparent?: string };
}

export type EmailCampaignSentV1 = ResultEvent<
  typeof EMAIL_CAMPAIGN_SENT_V1,
  EmailCampaignSentV1Data
>;
export type EmailContactListCreatedV1 = ResultEvent<
  typeof EMAIL_CONTACT_LIST_CREATED_V1,
  EmailContactListCreatedV1Data
>;
export type EmailDispatchFailedV1 = ResultEvent<
  typeof EMAIL_DISPATCH_FAILED_V1,
  EmailDispatchFailedV1Data
>;

export type EmailUnsubscribedV1 = ResultEvent<
  typeof EMAIL_UNSUBSCRIBED_V1,
  EmailUnsubscribedV1Data
>;

/** Any result, discriminated by `type`. */
export type MailbridgeResult =
  EmailCampaignSentV1 | EmailContactListCreatedV1 | EmailDispatchFailedV1 | EmailUnsubscribedV1;

export function isResultType(type: string): type is ResultType {
  return (RESULT_TYPES as readonly string[]).includes(type);
}
