import type { ClaimResult, IdempotencyStore, StoredOutcome } from './idempotency.store';

type Entry =
  | { kind: 'claim'; owner: string; expiresAt: number }
  | { kind: 'done'; outcome: StoredOutcome; expiresAt: number };

/**
 * For one local instance: the same semantics as the Redis store, in this process's memory.
 * Lost on restart, so only `MAILBRIDGE_MODE=local` defaults to it.
 */
export class MemoryIdempotencyStore implements IdempotencyStore {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly ttlSeconds: number,
    private readonly now: () => number = Date.now,
  ) {}

  claim(key: string, owner: string, claimTtlMs: number): Promise<ClaimResult> {
    const now = this.now();
    const entry = this.entries.get(key);
    const claim = (): void =>
      void this.entries.set(key, { kind: 'claim', owner, expiresAt: now + claimTtlMs });
    if (!entry || (entry.kind === 'done' && entry.expiresAt <= now)) {
      claim();
      return Promise.resolve({ kind: 'claimed' });
    }
    if (entry.kind === 'done') return Promise.resolve({ kind: 'done', outcome: entry.outcome });
    if (entry.owner === owner) {
      claim();
      return Promise.resolve({ kind: 'claimed' });
    }
    if (entry.expiresAt <= now) {
      claim();
      return Promise.resolve({ kind: 'reclaimed' });
    }
    return Promise.resolve({ kind: 'busy' });
  }

  complete(key: string, outcome: StoredOutcome): Promise<void> {
    this.entries.set(key, {
      kind: 'done',
      outcome,
      expiresAt: this.now() + this.ttlSeconds * 1000,
    });
    return Promise.resolve();
  }

  release(key: string, owner: string): Promise<void> {
    const entry = this.entries.get(key);
    if (entry?.kind === 'claim' && entry.owner === owner) this.entries.delete(key);
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.entries.clear();
    return Promise.resolve();
  }
}
