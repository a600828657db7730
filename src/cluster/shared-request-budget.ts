import { setTimeout as delay } from 'node:timers/promises';
import pLimit, { type LimitFunction } from 'p-limit';
import type { RequestBudget } from '../email-api/request-budget';
import { StoppingError } from '../email-api/vendor.errors';
import type { VendorEndpointName } from '../email-api/vendor.observer';
import type { BudgetPace, BudgetStore } from './budget.store';

/** One endpoint's budget: where it is kept and how it is spaced. */
export interface EndpointBudget {
  /** The store's key: names the endpoint and a hash of the vendor key, never the key. */
  key: string;
  pace: BudgetPace;
}

/** What metrics hear of the budget. `MetricsService` fits. */
export interface BudgetObserver {
  /** A request waited for its token (behind others, or for the budget) this long. */
  budgetWaited(endpoint: VendorEndpointName, seconds: number): void;
  /** A 429's `Retry-After` held the endpoint back for every replica. */
  budgetShrunk(endpoint: VendorEndpointName): void;
}

export interface SharedBudgetDeps {
  /** In [0, 1): `Math.random` unless a test pins it. */
  random?: () => number;
  /** A test's clock; by default a real timer that the stop ends. */
  sleep?: (ms: number) => Promise<void>;
  observer?: BudgetObserver;
  warn?: (message: string) => void;
}

/** How long a request asking while the service stops may wait for the store's answer. */
const LAST_ASK_MS = 1_000;
/** How long a request waits before asking again a store that answered with an error. */
const STORE_RETRY_MS = 1_000;
/** Added to each wait at random, so that replicas told the same moment do not ask at once. */
const MAX_JITTER_MS = 25;

/**
 * The request budget every replica keeps together (`RequestBudget`). Within a replica, requests
 * to one endpoint take turns, first come first served, and only the first asks the store;
 * between replicas, whoever asks first after a token falls due gets it, and a replica told to
 * wait asks again at the moment the store named, plus a little jitter. Nothing is ever dropped:
 * a request waits until it may go, and while the store is unreachable it waits for the store.
 * `close()` ends every wait with `StoppingError`.
 */
export class SharedRequestBudget implements RequestBudget {
  private readonly turns = new Map<VendorEndpointName, LimitFunction>();
  private readonly stopping = new AbortController();
  private readonly stopped: Promise<never>;
  private readonly random: () => number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(
    private readonly endpoints: Record<VendorEndpointName, EndpointBudget>,
    private readonly store: BudgetStore,
    private readonly deps: SharedBudgetDeps = {},
  ) {
    this.random = deps.random ?? Math.random;
    this.sleep = deps.sleep ?? ((ms) => delay(ms, undefined, { signal: this.stopping.signal }));
    this.stopped = new Promise<never>((_, reject) =>
      this.stopping.signal.addEventListener('abort', () => reject(new StoppingError())),
    );
    this.stopped.catch(() => undefined); // observed by whoever races it
  }

  async take(endpoint: VendorEndpointName): Promise<void> {
    const budget = this.endpoints[endpoint];
    const started = performance.now();
    let waited: boolean;
    if (budget.pace.intervalMs === 0) {
      // No pace: nothing to take turns for, only a 429's hold to respect.
      waited = await this.untilGranted(budget);
    } else {
      const turn = this.turnOf(endpoint);
      const queued = turn.activeCount + turn.pendingCount > 0;
      waited = (await turn(() => this.untilGranted(budget))) || queued;
    }
    if (waited) this.deps.observer?.budgetWaited(endpoint, (performance.now() - started) / 1000);
  }

  shrink(endpoint: VendorEndpointName, ms: number): void {
    const budget = this.endpoints[endpoint];
    this.deps.observer?.budgetShrunk(endpoint);
    this.deps.warn?.(
      `${endpoint}: vendor answered 429; every replica holds back for ${Math.ceil(ms)} ms`,
    );
    this.store
      .shrink(budget.key, budget.pace, ms)
      .catch((error: Error) =>
        this.deps.warn?.(`${endpoint}: request budget not held back (${error.name})`),
      );
  }

  /** The service is stopping: every wait ends; only a token granted at once still goes. */
  close(): void {
    this.stopping.abort();
  }

  /** Resolves, once the store granted a token, with whether it had to wait for it. */
  private async untilGranted(budget: EndpointBudget): Promise<boolean> {
    for (let asked = 0; ; asked++) {
      let waitMs: number;
      try {
        waitMs = await this.ask(budget);
      } catch (error) {
        if (error instanceof StoppingError) throw error;
        // A store that answers with an error (a Redis refusing writes) costs time, not the request.
        this.deps.warn?.(
          `request budget: the store failed (${(error as Error).name}); asking again`,
        );
        waitMs = STORE_RETRY_MS;
      }
      if (waitMs <= 0) return asked > 0;
      if (this.stopping.signal.aborted) throw new StoppingError();
      const jitterMs = Math.min(MAX_JITTER_MS, budget.pace.intervalMs / 10 || MAX_JITTER_MS);
      try {
        await Promise.race([
          this.sleep(waitMs + Math.floor(this.random() * jitterMs)),
          this.stopped,
        ]);
      } catch (error) {
        if (this.stopping.signal.aborted) throw new StoppingError();
        throw error;
      }
    }
  }

  /**
   * The store's answer. While stopping, a token granted at once still goes (what the stop
   * flushes), but a store that does not answer (Redis unreachable) cannot hold the stop.
   */
  private async ask(budget: EndpointBudget): Promise<number> {
    const answer = this.store.take(budget.key, budget.pace);
    if (!this.stopping.signal.aborted) return Promise.race([answer, this.stopped]);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new StoppingError()), LAST_ASK_MS);
    });
    try {
      return await Promise.race([answer, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  private turnOf(endpoint: VendorEndpointName): LimitFunction {
    let turn = this.turns.get(endpoint);
    if (!turn) this.turns.set(endpoint, (turn = pLimit(1)));
    return turn;
  }
}
