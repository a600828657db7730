import type { VendorEndpointName } from './vendor.observer';

/**
 * The pace the vendor client keeps per endpoint, shared by every replica that uses the same key
 * (implemented in `src/cluster/`). The client asks for a token right before each HTTP attempt,
 * retries included, and reports the vendor's `Retry-After` so that every replica holds back.
 */
export interface RequestBudget {
  /**
   * Resolves when a request to `endpoint` may be written; waits as long as the budget (or an
   * unreachable store) says. Rejects with {@link BudgetClosedError} once the service stops.
   */
  take(endpoint: VendorEndpointName): Promise<void>;
  /** The vendor answered 429 with `Retry-After`: no request to `endpoint` for `ms`, anywhere. */
  shrink(endpoint: VendorEndpointName, ms: number): void;
}

/**
 * A wait for a token ended because the service is stopping: nothing was sent, so the action is
 * abandoned uncommitted (not failed) and redelivered. The retry layer lets it through untouched.
 */
export class BudgetClosedError extends Error {
  override readonly name = 'BudgetClosedError';

  constructor() {
    super('the service is stopping: no more vendor requests');
  }
}

/** For callers that keep no budget (tools, tests): every request may go at once. */
export const NO_BUDGET: RequestBudget = {
  take: () => Promise.resolve(),
  shrink: () => undefined,
};

/** Injection token of the budget the module building the client is given. */
export const REQUEST_BUDGET = Symbol('REQUEST_BUDGET');
