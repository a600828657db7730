/**
 * How the handling of one inbound event ended. Each outcome is terminal and visible on Kafka:
 * a result event (`sent`, `failed`, `duplicate` re-publishes the stored one) or a dead letter.
 */
export type DispatchOutcome =
  | { kind: 'sent'; requestId: string }
  | { kind: 'failed'; errorCode: string }
  | { kind: 'dead-lettered'; errorCode: string };
