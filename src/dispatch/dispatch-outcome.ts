import type { ActionOutcome } from './action.runner';

/**
 * How the handling of one inbound record ended; every case is visible on Kafka: one result
 * event per template that handles the event type, or one dead letter.
 */
export type DispatchOutcome =
  | { kind: 'dispatched'; actions: Record<string, ActionOutcome> }
  | { kind: 'dead-lettered'; errorCode: string };
