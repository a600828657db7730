import type { VendorEndpointName } from './vendor.observer';

/**
 * The pace the vendor client keeps per endpoint, shared by every replica that uses the same key
 * (implemented in `src/cluster/`). The client asks for a token right before each HTTP attempt,
 * retries included, and reports the vendor's `Retry-After` so that every replica holds back.
 */
export interface RequestBudget {
  /**
   * Resolves when a request to `endpoint` may be written; waits as long as the budget (or an
   * unreachable store) says. Rejects with `StoppingError` once it is closed.
   */
  take(endpoint: VendorEndpointName): Promise<void>;
  /** The vendor answered 429 with `Retry-After`: no request to `endpoint` for `ms`, anywhere. */
  shrink(endpoint: VendorEndpointName, ms: number): void;
  /** The service is stopping: every wait ends with `StoppingError`, and no token is granted. */
  close?(): void;
}

/** For callers that keep no budget (tools, tests): every request may go at once. */
export const NO_BUDGET: RequestBudget = {
  take: () => Promise.resolve(),
  shrink: () => undefined,
};

/** Injection token of the budget the module building the client is given. */
export const REQUEST_BUDGET = Symbol('REQUEST_BUDGET');
