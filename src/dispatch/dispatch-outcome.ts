import type { IHeaders } from 'kafkajs';
import type { ActionOutcome } from '../contracts/action-outcome';

/** How one action ended for this handling: its outcome, or `duplicate` (an earlier one's). */
export type ActionStatus = ActionOutcome['status'] | 'duplicate';

/** What results carry over from the record their event came in: its key and tracing headers. */
export interface EventSource {
  key: Buffer | null;
  headers: IHeaders;
}

/**
 * How the dispatch of one event ended: every template for its type ran to a result on Kafka, or
 * the event cannot be planned at all (no template for its type, or a template threw), which the
 * inbound side dead-letters.
 */
export type DispatchOutcome =
  | { kind: 'dispatched'; actions: Record<string, ActionStatus> }
  | { kind: 'unplannable'; code: 'UNKNOWN_TYPE' | 'TEMPLATE_FAILED'; message: string };
