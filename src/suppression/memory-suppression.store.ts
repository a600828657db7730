import {
  SUPPRESSION_SCOPES,
  type SuppressionReason,
  type SuppressionScope,
} from '../contracts/email-suppression-requested.v1';
import type { SuppressionStore } from './suppression.store';

/**
 * The suppression list of one process (`IDEMPOTENCY_STORE=memory`: local runs, unit specs), with
 * the rules of the Redis one. Nothing survives a restart, which on the in-memory store nothing
 * else does either.
 */
export class MemorySuppressionStore implements SuppressionStore {
  /** `<scope>:<hash>` → reason, the Redis hash's fields (public: specs look for addresses in it). */
  readonly entries = new Map<string, SuppressionReason>();

  add(hash: string, scope: SuppressionScope, reason: SuppressionReason): Promise<void> {
    if (reason === 'erased') {
      this.entries.set(`all:${hash}`, 'erased');
      this.entries.delete(`marketing:${hash}`);
    } else if (this.entries.get(`${scope}:${hash}`) !== 'erased') {
      this.entries.set(`${scope}:${hash}`, reason);
    }
    return Promise.resolve();
  }

  remove(hash: string, scope: SuppressionScope): Promise<void> {
    if (this.entries.get(`${scope}:${hash}`) !== 'erased') this.entries.delete(`${scope}:${hash}`);
    return Promise.resolve();
  }

  scopesOf(hashes: readonly string[]): Promise<Map<string, SuppressionScope[]>> {
    const found = new Map<string, SuppressionScope[]>();
    for (const hash of hashes) {
      const scopes = SUPPRESSION_SCOPES.filter((scope) => this.entries.has(`${scope}:${hash}`));
      if (scopes.length > 0) found.set(hash, scopes);
    }
    return Promise.resolve(found);
  }
}
