import type { RecordedOutcome } from '../contracts/action-outcome';

/**
 * Who holds a claim: one handling of one record in one process. `instance` is the process (its
 * liveness is kept in the store, see {@link IdempotencyStore.heartbeat}); `handling` tells two
 * handlings of the same record in the same process apart, so that a redelivery inside one
 * process (a consumer restart, a partition given back) waits instead of sending again.
 */
export interface ClaimHolder {
  instance: string;
  handling: string;
}

/**
 * - `claimed`: nobody finished or is running this action; the caller now owns it.
 * - `reclaimed`: an earlier holder vanished (its process stopped beating, or its claim expired)
 *   without an outcome. `maybeSent` when it, or any holder before it, had marked the send as
 *   about to be written: the vendor may have it, so sending again is ambiguous. The caller owns
 *   it now, and the mark stays with the claim until an outcome replaces it.
 * - `done`: finished before; here is how.
 * - `busy`: another live handling is running it right now (here or in another process).
 */
export type ClaimResult =
  | { kind: 'claimed' }
  | { kind: 'reclaimed'; maybeSent: boolean }
  | { kind: 'done'; outcome: RecordedOutcome }
  | { kind: 'busy' };

/** One claimed action on its way to the vendor. */
export interface HeldClaim {
  key: string;
  holder: ClaimHolder;
}

/**
 * Remembers which (source event, template) actions ran, so that a redelivered event does not
 * reach the vendor twice. Keys are `<eventId>:<template>`. A claim moves through three states:
 * claimed → sending (the request is about to be written) → done (the outcome is recorded).
 */
export interface IdempotencyStore {
  /** Whether the store can be reached now; while it cannot, every claim waits. */
  readonly connected: boolean;
  /** Why it cannot be reached, when it cannot and the store knows (never a secret). */
  readonly connectionProblem?: string;
  /** Says `instance` is alive for `ttlMs`; its claims can be taken over once it stops saying so. */
  heartbeat(instance: string, ttlMs: number): Promise<void>;
  /** Says `instance` stopped: its remaining claims can be taken over at once. */
  retire(instance: string): Promise<void>;
  /**
   * `abandoned`: a holder of this process whose handling of the key ended without an outcome (a
   * store or broker error); its claim is taken over at once rather than waited out, as if its
   * process had stopped, and what its mark said (`maybeSent`) holds as for any takeover.
   */
  claim(
    key: string,
    holder: ClaimHolder,
    claimTtlMs: number,
    abandoned?: ClaimHolder,
  ): Promise<ClaimResult>;
  /** Extends a claim; false when it is no longer this holder's. */
  renew(key: string, holder: ClaimHolder, claimTtlMs: number): Promise<boolean>;
  /**
   * In one atomic step, marks the claims as being sent. Returns the keys still held by their
   * holder (and so marked); a claim that was lost must not be sent.
   */
  markSending(claims: HeldClaim[]): Promise<Set<string>>;
  /**
   * Records outcomes, kept for the store's retention period: each key's at once. On a sharded
   * Redis a batch whose keys lie in many hash slots goes as one call per slot, so a failed call
   * may leave part of it recorded (recording an outcome again changes nothing). An `in-window` mark never replaces an
   * outcome already recorded: the window's list may have closed between the order's member being
   * stored and its mark.
   */
  complete(outcomes: Array<{ key: string; outcome: RecordedOutcome }>): Promise<void>;
  /**
   * Gives a claim up without an outcome, so it can run again at once. A claim already marked
   * `sending` keeps that mark: whoever claims it next learns the send may have happened.
   */
  release(key: string, holder: ClaimHolder): Promise<void>;
  close(): Promise<void>;
}

export const IDEMPOTENCY_STORE = Symbol('IDEMPOTENCY_STORE');

/** `instance/handling`: how a holder is written into a claim. */
export function holderId(holder: ClaimHolder): string {
  return `${holder.instance}/${holder.handling}`;
}
