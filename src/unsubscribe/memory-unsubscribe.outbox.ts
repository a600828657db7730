import type { PendingUnsubscribe, UnsubscribeOutbox } from './unsubscribe.outbox';

/**
 * The outbox of one process (`IDEMPOTENCY_STORE=memory`: local runs and unit specs): what waits
 * is lost with the process, as everything else on the in-memory store is.
 */
export class MemoryUnsubscribeOutbox implements UnsubscribeOutbox {
  /** Unsubscribe id → when it may be queued again. */
  private readonly seen = new Map<string, number>();
  private readonly waiting: PendingUnsubscribe[] = [];
  private draining = false;

  constructor(private readonly now: () => number = Date.now) {}

  record(pending: PendingUnsubscribe, rememberMs: number): Promise<boolean> {
    const until = this.seen.get(pending.unsubscribeId);
    if (until !== undefined && until > this.now()) return Promise.resolve(false);
    this.seen.set(pending.unsubscribeId, this.now() + rememberMs);
    this.waiting.push(pending);
    return Promise.resolve(true);
  }

  async drain(
    max: number,
    publish: (batch: PendingUnsubscribe[]) => Promise<void>,
  ): Promise<number> {
    if (this.draining || this.waiting.length === 0) return 0;
    this.draining = true;
    try {
      const batch = this.waiting.slice(0, max);
      await publish(batch);
      this.waiting.splice(0, batch.length);
      return batch.length;
    } finally {
      this.draining = false;
    }
  }

  /** How many wait: for specs. */
  get size(): number {
    return this.waiting.length;
  }
}
