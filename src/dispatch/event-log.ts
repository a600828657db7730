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
): Record<string, unknown> {
  // Built as one object: one of these is written for every event.
  const line: Record<string, unknown> = {
    msg: status === 'duplicate' ? 'handled before: its result published again' : status,
    ...fields,
    status,
  };
  if (outcome.ambiguous) line.ambiguous = true;
  switch (outcome.status) {
    case 'sent':
      line.requestIds = outcome.requestIds;
      line.recipients = outcome.recipientCount;
      break;
    case 'created':
      line.listId = outcome.listId;
      line.members = outcome.memberCount;
      break;
    case 'failed':
      line.errorCode = outcome.errorCode;
      line.vendorStatus = outcome.vendorStatus;
      line.reason = outcome.message;
      break;
  }
  return line;
}
