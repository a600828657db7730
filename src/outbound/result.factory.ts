import {
  EMAIL_CAMPAIGN_SENT_V1,
  type EmailCampaignSentV1,
} from '../contracts/email-campaign-sent.v1';
import {
  EMAIL_CONTACT_LIST_CREATED_V1,
  type EmailContactListCreatedV1,
} from '../contracts/email-contact-list-created.v1';
import {
  DISPATCH_FAILURE_RETRIABLE,
  EMAIL_DISPATCH_FAILED_V1,
  isDispatchFailureCode,
  type DispatchFailureCode,
  type EmailDispatchFailedV1,
} from '../contracts/email-dispatch-failed.v1';
import type { EventEnvelope } from '../contracts/event-envelope';
import { resultEventId, type ResultEvent } from '../contracts/result-event';
import type { TopicsConfig } from '../config/app-config';
import type { ActionOutcome } from '../contracts/action-outcome';

export type ResultEventOf = EmailCampaignSentV1 | EmailContactListCreatedV1 | EmailDispatchFailedV1;

/**
 * The result event (a CloudEvent) for an outcome. Built from the stored outcome alone, so a
 * redelivered event gets a result identical to the first one (same id), not a second, different
 * one. `resultSource`: the results' CloudEvents `source` (`RESULT_EVENT_SOURCE`); `time`: when it
 * is published, as a Date or already as RFC 3339 text (results published together share it).
 */
export function resultFor(
  source: Pick<EventEnvelope, 'id' | 'type'>,
  template: string,
  outcome: ActionOutcome,
  time: Date | string,
  resultSource: string,
): ResultEventOf {
  const base = sharedAttributes(source, time, resultSource);
  const origin = { sourceEventId: source.id, sourceEventType: source.type, template };
  switch (outcome.status) {
    case 'sent':
      return {
        ...base,
        id: resultEventId(EMAIL_CAMPAIGN_SENT_V1, source.id, template),
        type: EMAIL_CAMPAIGN_SENT_V1,
        data: {
          ...origin,
          requestId: outcome.requestIds[0],
          requestIds: outcome.requestIds,
          message: outcome.message,
          campaignId: outcome.campaignId,
          locale: outcome.locale,
          recipientCount: outcome.recipientCount,
          batchRecipientCount: outcome.batchRecipientCount,
          suppressedCount: outcome.suppressedCount,
          ambiguous: outcome.ambiguous,
        },
      };
    case 'created':
      return {
        ...base,
        id: resultEventId(EMAIL_CONTACT_LIST_CREATED_V1, source.id, template),
        type: EMAIL_CONTACT_LIST_CREATED_V1,
        data: {
          ...origin,
          listId: outcome.listId,
          name: outcome.name,
          memberCount: outcome.memberCount,
          suppressedCount: outcome.suppressedCount,
          ambiguous: outcome.ambiguous,
        },
      };
    case 'failed':
      return {
        ...base,
        id: resultEventId(EMAIL_DISPATCH_FAILED_V1, source.id, template),
        type: EMAIL_DISPATCH_FAILED_V1,
        data: { ...origin, ...failureData(outcome) },
      };
  }
}

/** What a failed result says beyond its origin: the code, and what the outcome adds to it. */
function failureData(
  outcome: Extract<ActionOutcome, { status: 'failed' }>,
): Omit<EmailDispatchFailedV1['data'], 'sourceEventId' | 'sourceEventType' | 'template'> {
  const errorCode = publishedCode(outcome.errorCode, outcome.vendorStatus);
  return {
    errorCode,
    reasonCode: outcome.reasonCode,
    suppressedCount: outcome.suppressedCount,
    vendorStatus: outcome.vendorStatus,
    retriable: DISPATCH_FAILURE_RETRIABLE[errorCode],
    message: outcome.message,
    ambiguous: outcome.ambiguous,
  };
}

/** The attributes a result has whatever its type: all but its `id`, `type` and `data`. */
function sharedAttributes(
  source: Pick<EventEnvelope, 'id'>,
  time: Date | string,
  resultSource: string,
): Omit<ResultEvent<string, unknown>, 'id' | 'type' | 'data'> {
  return {
    specversion: '1.0',
    source: resultSource,
    time: typeof time === 'string' ? time : time.toISOString(),
    datacontenttype: 'application/json',
    sourceeventid: source.id,
  };
}

/**
 * What outcomes recorded before the stable codes hold (the vendor client's error class names,
 * kept in the store for `IDEMPOTENCY_TTL_SECONDS`), as the code delivery gives that error now.
 * A plain `VendorError` was a refusal by status or an unexpected failure: see `publishedCode`.
 */
const LEGACY_ERROR_NAMES: Readonly<Record<string, DispatchFailureCode>> = {
  VendorRequestError: 'INVALID_REQUEST',
  VendorResponseError: 'VENDOR_BAD_RESPONSE',
  VendorNetworkError: 'VENDOR_UNAVAILABLE',
  VendorTimeoutError: 'VENDOR_UNAVAILABLE',
  VendorAuthError: 'VENDOR_REJECTED',
  VendorWithheldError: 'INTERNAL_ERROR',
  VendorConfigError: 'INTERNAL_ERROR',
};

/** The stored `errorCode` if it is a code; an old class name mapped to one; else INTERNAL_ERROR. */
function publishedCode(stored: string, vendorStatus: number | undefined): DispatchFailureCode {
  if (isDispatchFailureCode(stored)) return stored;
  if (Object.hasOwn(LEGACY_ERROR_NAMES, stored)) return LEGACY_ERROR_NAMES[stored];
  if (vendorStatus === undefined) return 'INTERNAL_ERROR';
  return vendorStatus >= 400 && vendorStatus < 500 ? 'VENDOR_REJECTED' : 'VENDOR_UNAVAILABLE';
}

/** The topic that carries the result of an outcome of this kind. */
export function resultTopic(outcome: ActionOutcome, topics: TopicsConfig): string {
  switch (outcome.status) {
    case 'sent':
      return topics.campaignSent;
    case 'created':
      return topics.contactListCreated;
    case 'failed':
      return topics.dispatchFailed;
  }
}
