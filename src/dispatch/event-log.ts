import type { ActionOutcome } from '../contracts/action-outcome';
import type { InboundEvent } from '../contracts/inbound-contracts';
import type { ActionStatus, EventSource } from './dispatch-outcome';

/**
 * The fields of every log line about one event's template: enough to find the event on Kafka
 * (topic, partition, offset) and in other services' logs (its id), and to tell which template
 * it was. Recipient addresses are not among them, nor the values of a CloudEvent's extension
 * attributes (a producer's, of unknown sensitivity): only their names.
 */
export function eventLogFields(event: InboundEvent, template: string, source: EventSource) {
  return {
    eventId: event.id,
    eventType: event.type,
    topic: source.topic,
    partition: source.partition,
    offset: source.offset,
    template,
    ...(event.extensions ? { extensions: Object.keys(event.extensions) } : {}),
  };
}

/** The line that says how a template ended for an event, with what the vendor answered. */
export function outcomeLogLine(
  status: ActionStatus,
  outcome: ActionOutcome,
  fields: ReturnType<typeof eventLogFields>,
) {
  const base = { ...fields, status, ...(outcome.ambiguous ? { ambiguous: true } : {}) };
  const what = status === 'duplicate' ? 'handled before: its result published again' : status;
  switch (outcome.status) {
    case 'sent':
      return {
        msg: what,
        ...base,
        requestIds: outcome.requestIds,
        recipients: outcome.recipientCount,
      };
    case 'created':
      return { msg: what, ...base, listId: outcome.listId, members: outcome.memberCount };
    case 'failed':
      return {
        msg: what,
        ...base,
        errorCode: outcome.errorCode,
        vendorStatus: outcome.vendorStatus,
        reason: outcome.message,
      };
  }
}
