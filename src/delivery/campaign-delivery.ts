import type { Context } from '@opentelemetry/api';
import type { ActionOutcome } from '../contracts/action-outcome';
import type { VendorError } from '../email-api/vendor.errors';
import type { CampaignRecipient } from '../email-api/vendor.types';
import type { HeldClaim, IdempotencyStore } from '../idempotency/idempotency.store';

// What the campaign batcher and its acceptance recorder share: a caller's recipients, the action
// they belong to, and what becomes of them.

/** Where claims are marked before a request is written and outcomes recorded when it is accepted. */
export type SendLedger = Pick<IdempotencyStore, 'markSending' | 'complete'>;

/** The claimed action some recipients belong to, and the outcome to record for it. */
export interface BatchedAction {
  claim: HeldClaim;
  /** The event's trace, which the vendor request carrying these recipients links to. */
  trace?: Context;
  /** The outcome to record once this delivery is known, or undefined if it does not end the action. */
  outcomeOf(delivery: CampaignDelivery): ActionOutcome | undefined;
}

/** What became of the recipients one caller added, in the order it gave them. */
export interface CampaignDelivery {
  sent: Array<{ recipient: CampaignRecipient; requestId: string; message: string }>;
  failed: Array<{ recipient: CampaignRecipient; error: VendorError }>;
  /** Recipients of the whole vendor request(s) this delivery travelled in. */
  batchRecipientCount: number;
  /** Failed attempts of those requests that may have reached the vendor all the same. */
  ambiguousAttempts: number;
  /** The outcome `outcomeOf` gave for this delivery is recorded in the ledger already. */
  recorded: boolean;
  /** That outcome, when `recorded`: the caller publishes exactly what was recorded. */
  outcome?: ActionOutcome;
}

/**
 * How the batcher tells a caller what became of its recipients: exactly one of the two, once.
 * Neither may throw: they run in a loop over every caller of a request.
 */
export interface CampaignSettle {
  delivered(delivery: CampaignDelivery): void;
  failed(error: unknown): void;
}

/** One caller's recipients in a request being gathered. */
export interface Entry {
  recipients: CampaignRecipient[];
  /** Each recipient serialised: measured here, then joined into the request body as it is. */
  json: string[];
  action?: BatchedAction;
  settle: CampaignSettle;
}
