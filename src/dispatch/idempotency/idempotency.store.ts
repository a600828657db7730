/** What a finished action left behind: enough to publish its result event again. */
export type StoredOutcome =
  | {
      status: 'sent';
      requestIds: string[];
      message: string;
      campaignId?: string;
      recipientCount: number;
      batchRecipientCount: number;
    }
  | { status: 'created'; listId: string; name: string; memberCount: number }
  | { status: 'failed'; errorCode: string; vendorStatus?: number; message: string };

/**
 * - `claimed`: nobody finished or is running this action; the caller now owns it.
 * - `reclaimed`: an earlier owner started it and vanished without recording an outcome (its
 *   claim expired): the vendor may or may not have received it. The caller owns it now.
 * - `done`: finished before; here is how.
 * - `busy`: another live owner is running it right now.
 */
export type ClaimResult =
  | { kind: 'claimed' }
  | { kind: 'reclaimed' }
  | { kind: 'done'; outcome: StoredOutcome }
  | { kind: 'busy' };

/**
 * Remembers which (source event, template) actions ran, so that a redelivered event does not
 * reach the vendor twice. Keys are `<eventId>:<template>`.
 */
export interface IdempotencyStore {
  /** Claims `key` for `owner` for `claimTtlMs`; an owner may renew its own claim. */
  claim(key: string, owner: string, claimTtlMs: number): Promise<ClaimResult>;
  /** Records the outcome; kept for the store's retention period. */
  complete(key: string, outcome: StoredOutcome): Promise<void>;
  /** Gives a claim up without an outcome (nothing was sent), so it can run again at once. */
  release(key: string, owner: string): Promise<void>;
  close(): Promise<void>;
}

export const IDEMPOTENCY_STORE = Symbol('IDEMPOTENCY_STORE');
