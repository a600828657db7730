import { VendorError, VendorNetworkError, VendorTimeoutError } from './vendor.errors';

/** The vendor endpoints, as metrics name them. */
export type VendorEndpointName = 'relay' | 'contacts';

/**
 * What the client reports of each HTTP attempt and each retry, for metrics. `MetricsService`
 * fits; the client's own specs pass a recorder. Called once per attempt, never per recipient.
 */
export interface VendorObserver {
  /** An attempt ended after `seconds`: `status` is the HTTP status, or `timeout`/`error`. */
  vendorRequest(endpoint: VendorEndpointName, status: string, seconds: number): void;
  /** A failed attempt is about to be tried again; `reason` is one of {@link retryReason}'s. */
  vendorRetry(endpoint: VendorEndpointName, reason: string): void;
}

/** The status label of a failed attempt: the HTTP status when one came, else timeout or error. */
export function failedStatus(error: unknown): string {
  if (error instanceof VendorError && error.status !== undefined) return String(error.status);
  return error instanceof VendorTimeoutError ? 'timeout' : 'error';
}

/** Why an attempt is retried, from a small fixed set (a label value). */
export function retryReason(
  error: VendorError,
): 'rate_limited' | 'server_error' | 'timeout' | 'network' | 'other' {
  if (error.status === 429) return 'rate_limited';
  if (error.status !== undefined && error.status >= 500) return 'server_error';
  if (error instanceof VendorTimeoutError) return 'timeout';
  if (error instanceof VendorNetworkError) return 'network';
  return 'other';
}
