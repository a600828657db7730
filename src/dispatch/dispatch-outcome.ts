import type { Context } from '@opentelemetry/api';
import type { IHeaders } from 'kafkajs';
import type { ActionOutcome } from '../contracts/action-outcome';

/**
 * How one action ended for this handling: its outcome, `duplicate` (an earlier one's), or
 * `in-window` (its member is stored in a contact-list window; its result comes with the list).
 */
export type ActionStatus = ActionOutcome['status'] | 'duplicate' | 'in-window';

/**
 * The record an event came in: results carry over its key and tracing headers, and the event's
 * log lines name where it was read.
 */
export interface EventSource {
  key: Buffer | null;
  headers: IHeaders;
  topic: string;
  partition: number;
  offset: string;
  /** The record's span (`Tracing.consume`): what is done for the event continues its trace. */
  trace?: Context;
}

/**
 * How the dispatch of one event ended: every template for its type ran to a result on Kafka, or
 * the event cannot be planned at all (no template for its type, or a template threw), which the
 * inbound side dead-letters.
 */
export type DispatchOutcome =
  | { kind: 'dispatched'; actions: Record<string, ActionStatus> }
  | { kind: 'unplannable'; code: 'UNKNOWN_TYPE' | 'TEMPLATE_FAILED'; message: string };
