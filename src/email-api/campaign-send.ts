// What one campaign send shares between the requests (chunks) it is split into, and what its
// caller hears of them while they are under way.
import type { VendorAuthError, VendorError } from './vendor.errors';
import type { CampaignChunkResult, CampaignRecipient, CampaignRequest } from './vendor.types';

type Content = Omit<CampaignRequest, 'recipients'>;

/** What a caller hears of a campaign send while it is under way. */
export interface CampaignSendHooks {
  /**
   * Called before every attempt of a vendor request, retries included, with its budget token
   * held and a connection free for it, and with the recipient indexes it still carries.
   * Resolves with those that may go (their claims are still the caller's, and now marked); the
   * others are withheld, reported as failed with a `VendorWithheldError`, and never written.
   */
  beforeWrite?: (indexes: number[]) => Promise<Set<number>>;
  /** Each request's outcome, the moment it is known. */
  onChunk?: (chunk: CampaignChunkResult) => void;
}

/** Records a chunk's result in its send, and tells the caller at once. */
export function report(send: CampaignSend, result: CampaignChunkResult): void {
  send.results.push(result);
  send.hooks.onChunk?.(result);
}

/** The state one `sendCampaign` call shares between its chunks. */
export interface CampaignSend {
  content: Content;
  to: CampaignRecipient[];
  /** Each of `to` serialised, when the caller had it. */
  json?: readonly string[];
  results: CampaignChunkResult[];
  hooks: CampaignSendHooks;
  authError?: VendorAuthError;
}

export function failed(
  error: VendorError,
  recipientIndexes: number[],
  attempts = 0,
  ambiguousAttempts = 0,
): CampaignChunkResult {
  return { ok: false, error, recipientIndexes, attempts, ambiguousAttempts };
}
