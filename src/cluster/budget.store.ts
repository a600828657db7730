import type { VendorRate } from '../config/vendor-rate';

/**
 * One budget's spacing in the terms of GCRA (the generic cell rate algorithm, ITU-T I.371): a
 * token every `intervalMs`, up to `toleranceMs` ahead of that schedule (the burst). The bucket's
 * whole state is one number, its theoretical arrival time (TAT).
 */
export interface BudgetPace {
  intervalMs: number;
  toleranceMs: number;
}

/**
 * Where a budget's state lives: Redis for replicas, memory for one process. Both keep the rules
 * of {@link takeToken} and {@link holdBack}. `now` (ms) is for tests; otherwise the store's own
 * clock decides (Redis: its `TIME`, so that the replicas' clocks do not matter).
 */
export interface BudgetStore {
  /** 0 when a token was granted (and spent), else the milliseconds until one may be. */
  take(key: string, pace: BudgetPace, now?: number): Promise<number>;
  /** No token before `now + ms`; never earlier than already set. Resolves whether it moved. */
  shrink(key: string, pace: BudgetPace, ms: number, now?: number): Promise<boolean>;
}

/** Without a rate: no spacing, but a 429's hold still applies. */
export const UNPACED: BudgetPace = { intervalMs: 0, toleranceMs: 0 };

/**
 * The spacing that keeps at most `rate.count` requests in any window of `rate.periodMs`, with
 * `burst` of them allowed at once. Any `count + 1` tokens are then granted at least
 * `periodMs + marginMs` apart: GCRA grants token k at or after token j plus
 * `(k - j) * interval - tolerance`, and `(count + 1 - burst) * interval >= periodMs + marginMs`.
 * So the vendor sees at most `count` per period as long as the way there delays no request more
 * than `marginMs` beyond another. The price of a burst is a slower steady pace: `count - burst + 1`
 * requests per period.
 */
export function paceOf(rate: VendorRate | undefined, burst: number, marginMs: number): BudgetPace {
  if (!rate) return UNPACED;
  const intervalMs = Math.ceil((rate.periodMs + marginMs) / (rate.count - burst + 1));
  return { intervalMs, toleranceMs: (burst - 1) * intervalMs };
}

/** GCRA's take: the new TAT when a token is granted, or how long to wait. */
export function takeToken(
  stored: number | undefined,
  now: number,
  pace: BudgetPace,
): { granted: true; tat: number } | { granted: false; waitMs: number } {
  const tat = Math.max(stored ?? now, now);
  const waitMs = tat - pace.toleranceMs - now;
  if (waitMs > 0) return { granted: false, waitMs };
  return { granted: true, tat: tat + pace.intervalMs };
}

/**
 * The TAT that grants no token before `now + ms` (and, after it, one at a time), or undefined
 * when the stored one already holds back as long.
 */
export function holdBack(
  stored: number | undefined,
  now: number,
  pace: BudgetPace,
  ms: number,
): number | undefined {
  const held = now + ms + pace.toleranceMs;
  return held > (stored ?? now) ? held : undefined;
}
