import type { Context } from '@opentelemetry/api';
import type { VendorError } from '../email-api/vendor.errors';
import type { CampaignRecipient } from '../email-api/vendor.types';
import type { TemplateCategory } from '../contracts/template-category';
import type { HeldClaim, IdempotencyStore } from '../idempotency/idempotency.store';
import type { SuppressionList } from '../suppression/suppression-list';

// What the campaign batcher and the callers of one of its requests share: a caller's recipients,
// the claim they go under, and what became of them.

/** Where claims are marked `sending` just before the request carrying them is written. */
export type SendLedger = Pick<IdempotencyStore, 'markSending'>;

/** Which recipients of a request are suppressed: one store round trip for all of them. */
export type SuppressionCheck = Pick<SuppressionList, 'checkEach'>;

/** The claimed action some recipients belong to. */
export interface BatchedAction {
  claim: HeldClaim;
  /** Its template's category: which suppressions stop its recipients. */
  category: TemplateCategory;
  /** The event's trace, which the vendor request carrying these recipients links to. */
  trace?: Context;
}

/** What became of the recipients one caller added, in the order it gave them. */
export interface RecipientResults {
  sent: Array<{ recipient: CampaignRecipient; requestId: string; message: string }>;
  failed: Array<{ recipient: CampaignRecipient; error: VendorError }>;
  /** On the suppression list for the action's category: never written, never tried again. */
  suppressed: CampaignRecipient[];
  /** Recipients of the whole vendor request(s) these recipients travelled in. */
  batchRecipientCount: number;
  /** Failed attempts of those requests that may have reached the vendor all the same. */
  ambiguousAttempts: number;
}

/** One caller's recipients in a request being gathered, and how the caller hears of them, once. */
export interface Entry {
  recipients: CampaignRecipient[];
  /** Each recipient serialised: measured here, then joined into the request body as it is. */
  json: string[];
  action?: BatchedAction;
  delivered(results: RecipientResults): void;
  failed(error: unknown): void;
}
