import type { EmailUnsubscribedV1Data } from '../contracts/email-unsubscribed.v1';

/** An unsubscribe stored and waiting to be published as `email.unsubscribed.v1`. */
export type PendingUnsubscribe = EmailUnsubscribedV1Data;

/**
 * Where an unsubscribe waits between the POST that made it and Kafka: the POST is answered once
 * the unsubscribe is here, and the drain publishes it whenever the broker can take it, so a
 * broker that is away when a reader clicks costs time, never the event.
 */
export interface UnsubscribeOutbox {
  /**
   * Queues `pending` unless an unsubscribe with its id was queued within `rememberMs`: the same
   * link posted twice is one event. Resolves `true` when it was queued now.
   */
  record(pending: PendingUnsubscribe, rememberMs: number): Promise<boolean>;
  /**
   * Hands the oldest waiting unsubscribes (at most `max`) to `publish`, and removes them once it
   * resolves. At most one replica drains at a time; one that finds another draining does
   * nothing and resolves 0. A `publish` that rejects leaves them waiting.
   */
  drain(max: number, publish: (batch: PendingUnsubscribe[]) => Promise<void>): Promise<number>;
}

export const UNSUBSCRIBE_OUTBOX = Symbol('UNSUBSCRIBE_OUTBOX');
