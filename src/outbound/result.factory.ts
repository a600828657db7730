import {
  EMAIL_CAMPAIGN_SENT_V1,
  type EmailCampaignSentV1,
} from '../contracts/email-campaign-sent.v1';
import {
  EMAIL_CONTACT_LIST_CREATED_V1,
  type EmailContactListCreatedV1,
} from '../contracts/email-contact-list-created.v1';
import {
  EMAIL_DISPATCH_FAILED_V1,
  type EmailDispatchFailedV1,
} from '../contracts/email-dispatch-failed.v1';
import type { EventEnvelope } from '../contracts/event-envelope';
import { RESULT_SOURCE, resultEventId } from '../contracts/result-event';
import type { TopicsConfig } from '../config/app-config';
import type { ActionOutcome } from '../contracts/action-outcome';

export type ResultEventOf = EmailCampaignSentV1 | EmailContactListCreatedV1 | EmailDispatchFailedV1;

/**
 * The result event for an outcome. Built from the stored outcome alone, so a redelivered event
 * gets a result identical to the first one (same id), not a second, different one.
 */
export function resultFor(
  source: EventEnvelope,
  template: string,
  outcome: ActionOutcome,
  time: Date,
): ResultEventOf {
  const base = {
    source: RESULT_SOURCE,
    time: time.toISOString(),
    correlationId: source.id,
  } as const;
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
          recipientCount: outcome.recipientCount,
          batchRecipientCount: outcome.batchRecipientCount,
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
          ambiguous: outcome.ambiguous,
        },
      };
    case 'failed':
      return {
        ...base,
        id: resultEventId(EMAIL_DISPATCH_FAILED_V1, source.id, template),
        type: EMAIL_DISPATCH_FAILED_V1,
        data: {
          ...origin,
          errorCode: outcome.errorCode,
          vendorStatus: outcome.vendorStatus,
          retriable: outcome.ambiguous === true,
          message: outcome.message,
          ambiguous: outcome.ambiguous,
        },
      };
  }
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
