import type { RecordedOutcome } from '../contracts/action-outcome';
import {
  holderId,
  type ClaimHolder,
  type ClaimResult,
  type HeldClaim,
  type IdempotencyStore,
} from './idempotency.store';

type Entry =
  | { kind: 'claim'; holder: string; instance: string; expiresAt: number; sending: boolean }
  | { kind: 'done'; outcome: RecordedOutcome; expiresAt: number };

/**
 * For one local instance: the same semantics as the Redis store, in this process's memory.
 * Lost on restart, so only `MAILBRIDGE_MODE=local` defaults to it.
 */
export class MemoryIdempotencyStore implements IdempotencyStore {
  readonly connected = true;
  private readonly entries = new Map<string, Entry>();
  private readonly alive = new Map<string, number>();

  constructor(
    private readonly ttlSeconds: number,
    private readonly now: () => number = Date.now,
  ) {}

  heartbeat(instance: string, ttlMs: number): Promise<void> {
    this.alive.set(instance, this.now() + ttlMs);
    return Promise.resolve();
  }

  retire(instance: string): Promise<void> {
    this.alive.delete(instance);
    return Promise.resolve();
  }

  claim(
    key: string,
    holder: ClaimHolder,
    claimTtlMs: number,
    abandoned?: ClaimHolder,
  ): Promise<ClaimResult> {
    const now = this.now();
    const entry = this.entries.get(key);
    if (entry?.kind === 'done' && entry.expiresAt > now) {
      return Promise.resolve({ kind: 'done', outcome: entry.outcome });
    }
    const id = holderId(holder);
    if (entry?.kind === 'claim') {
      if (entry.holder === id) return Promise.resolve({ kind: 'claimed' });
      const ownerAlive = (this.alive.get(entry.instance) ?? 0) > now;
      const given = abandoned !== undefined && entry.holder === holderId(abandoned);
      if (ownerAlive && entry.expiresAt > now && !given) return Promise.resolve({ kind: 'busy' });
    }
    this.entries.set(key, {
      kind: 'claim',
      holder: id,
      instance: holder.instance,
      expiresAt: now + claimTtlMs,
      // A taker-over inherits the mark: should it stop before sending, the next one learns it.
      sending: entry?.kind === 'claim' && entry.sending,
    });
    if (entry?.kind !== 'claim') return Promise.resolve({ kind: 'claimed' });
    return Promise.resolve({ kind: 'reclaimed', maybeSent: entry.sending });
  }

  renew(key: string, holder: ClaimHolder, claimTtlMs: number): Promise<boolean> {
    const entry = this.entries.get(key);
    if (entry?.kind !== 'claim' || entry.holder !== holderId(holder)) return Promise.resolve(false);
    entry.expiresAt = this.now() + claimTtlMs;
    return Promise.resolve(true);
  }

  markSending(claims: HeldClaim[]): Promise<Set<string>> {
    const held = new Set<string>();
    for (const { key, holder } of claims) {
      const entry = this.entries.get(key);
      if (entry?.kind !== 'claim' || entry.holder !== holderId(holder)) continue;
      entry.sending = true;
      held.add(key);
    }
    return Promise.resolve(held);
  }

  complete(outcomes: Array<{ key: string; outcome: RecordedOutcome }>): Promise<void> {
    const expiresAt = this.now() + this.ttlSeconds * 1000;
    for (const { key, outcome } of outcomes) {
      if (outcome.status === 'in-window' && this.entries.get(key)?.kind === 'done') continue;
      this.entries.set(key, { kind: 'done', outcome, expiresAt });
    }
    return Promise.resolve();
  }

  release(key: string, holder: ClaimHolder): Promise<void> {
    const entry = this.entries.get(key);
    if (entry?.kind !== 'claim' || entry.holder !== holderId(holder)) return Promise.resolve();
    if (entry.sending)
      entry.expiresAt = 0; // the mark stays: the request may have been written
    else this.entries.delete(key);
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.entries.clear();
    return Promise.resolve();
  }
}
