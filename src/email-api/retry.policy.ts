import { StoppingError, VendorError, VendorNetworkError } from './vendor.errors';

export interface RetrySettings {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  baseMs: number;
  capMs: number;
  /**
   * Whether a request whose fate is unknown (written, then no answer) is tried again: a possible
   * second send (at-least-once) against a failure the caller reports as ambiguous (at-most-once).
   */
  retryAmbiguous: boolean;
  /** A `Retry-After` beyond this ends the retries; the error goes back to the caller. */
  retryAfterMaxMs: number;
}

export interface RetryDeps {
  /** In [0, 1): `Math.random` unless a test pins it. */
  random: () => number;
  sleep: (ms: number) => Promise<void>;
  warn: (message: string) => void;
}

/** `ambiguousAttempts`: failed attempts that may have reached the vendor all the same. */
export type RetryOutcome<T> =
  | { ok: true; value: T; attempts: number; ambiguousAttempts: number }
  | { ok: false; error: VendorError; attempts: number; ambiguousAttempts: number };

/**
 * The one retry layer of the vendor client: capped exponential backoff with full jitter
 * (AWS Architecture Blog, "Exponential Backoff And Jitter"), never shorter than the vendor's
 * `Retry-After`. Nothing below it (undici) retries, and nothing above it should.
 */
export class RetryPolicy {
  constructor(
    private readonly settings: RetrySettings,
    private readonly deps: RetryDeps,
  ) {}

  /** `onRetry` hears of each failed attempt that is about to be tried again (for metrics). */
  async run<T>(
    label: string,
    attempt: () => Promise<T>,
    onRetry?: (error: VendorError) => void,
  ): Promise<RetryOutcome<T>> {
    let ambiguousAttempts = 0;
    for (let n = 1; ; n++) {
      try {
        return { ok: true, value: await attempt(), attempts: n, ambiguousAttempts };
      } catch (thrown) {
        if (thrown instanceof StoppingError) throw thrown; // stopping: nothing was sent
        const error =
          thrown instanceof VendorError
            ? thrown
            : new VendorError(`${label}: unexpected failure`, false, undefined, { cause: thrown });
        if (error.ambiguous) ambiguousAttempts++;
        const delay = this.delayAfter(n, error);
        if (delay === undefined) return { ok: false, error, attempts: n, ambiguousAttempts };
        onRetry?.(error);
        this.deps.warn(
          `${label}: attempt ${n}/${this.settings.maxAttempts} failed (${describe(error)}); retrying in ${delay} ms`,
        );
        await this.deps.sleep(delay);
      }
    }
  }

  /** Milliseconds to wait after failed attempt `n`, or undefined when it is time to stop. */
  delayAfter(n: number, error: VendorError): number | undefined {
    if (!error.retriable || n >= this.settings.maxAttempts) return undefined;
    if (error.ambiguous && !this.settings.retryAmbiguous) return undefined;
    const { baseMs, capMs, retryAfterMaxMs } = this.settings;
    const backoff = Math.floor(this.deps.random() * Math.min(capMs, baseMs * 2 ** (n - 1)));
    if (error.retryAfterMs === undefined) return backoff;
    if (error.retryAfterMs > retryAfterMaxMs) return undefined;
    return Math.max(error.retryAfterMs, backoff);
  }
}

/**
 * `Retry-After` in either form of RFC 9110 §10.2.3: delay-seconds or an HTTP-date. Returns
 * milliseconds from `nowMs`, 0 for a date in the past, undefined when absent or malformed.
 */
export function parseRetryAfter(
  value: string | string[] | undefined,
  nowMs: number,
): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  if (!/[a-z]/i.test(text)) return undefined; // "1.5" or "-3": neither form
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

function describe(error: VendorError): string {
  const detail = error instanceof VendorNetworkError ? error.code : error.status;
  return detail === undefined ? error.name : `${error.name} ${detail}`;
}
