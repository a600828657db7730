import { isRecord } from '../email-api/is-record';
import type { FaultConfig, StatusFault } from './sandbox-options';

/** What the stand-in does with one request before (or instead of) handling it. */
export type FaultDecision =
  | { kind: 'pass'; latencyMs: number }
  | { kind: 'hang' }
  | { kind: 'reset'; latencyMs: number }
  | {
      kind: 'status';
      fault: 'status' | 'rate-limit';
      status: number;
      headers: Record<string, string>;
      latencyMs: number;
    };

const KEYS = new Set([
  'latencyMs',
  'latencyJitterMs',
  'statuses',
  'hangShare',
  'resetShare',
  'maxRecipients',
  'maxBodyBytes',
  'rateLimit',
]);

/**
 * Decides, per request, which fault (if any) the stand-in plays. With no faults configured it
 * costs one object per request and draws no random numbers.
 */
export class FaultInjector {
  private config: FaultConfig = {};
  private windowStart = 0;
  private windowCount = 0;

  constructor(
    config: FaultConfig = {},
    private readonly random: () => number = Math.random,
    private readonly now: () => number = Date.now,
  ) {
    this.set(config);
  }

  get current(): FaultConfig {
    return this.config;
  }

  /** Replaces every fault at once; throws with the list of what is wrong. */
  set(config: unknown): void {
    this.config = validateFaults(config);
    this.windowStart = this.now();
    this.windowCount = 0;
  }

  decide(): FaultDecision {
    const c = this.config;
    const latencyMs =
      (c.latencyMs ?? 0) + (c.latencyJitterMs ? Math.floor(this.random() * c.latencyJitterMs) : 0);
    const limited = this.rateLimited();
    if (limited !== undefined) {
      return { kind: 'status', fault: 'rate-limit', status: 429, headers: limited, latencyMs };
    }
    if (!c.hangShare && !c.resetShare && !c.statuses?.length) return { kind: 'pass', latencyMs };
    let draw = this.random();
    if ((draw -= c.hangShare ?? 0) < 0) return { kind: 'hang' };
    if ((draw -= c.resetShare ?? 0) < 0) return { kind: 'reset', latencyMs };
    for (const fault of c.statuses ?? []) {
      if ((draw -= fault.share) < 0) {
        return {
          kind: 'status',
          fault: 'status',
          status: fault.status,
          headers: this.retryAfter(fault),
          latencyMs,
        };
      }
    }
    return { kind: 'pass', latencyMs };
  }

  /** The 413 limits, checked once the body is parsed. */
  tooLarge(recipients: number, bytes: number): string | undefined {
    const { maxRecipients, maxBodyBytes } = this.config;
    if (maxRecipients !== undefined && recipients > maxRecipients) {
      return `at most ${maxRecipients} recipients per request`;
    }
    if (maxBodyBytes !== undefined && bytes > maxBodyBytes) {
      return `at most ${maxBodyBytes} bytes per request`;
    }
    return undefined;
  }

  private rateLimited(): Record<string, string> | undefined {
    const limit = this.config.rateLimit;
    if (!limit) return undefined;
    const now = this.now();
    if (now - this.windowStart >= limit.windowMs) {
      this.windowStart = now;
      this.windowCount = 0;
    }
    if (++this.windowCount <= limit.requests) return undefined;
    const seconds = Math.max(1, Math.ceil((this.windowStart + limit.windowMs - now) / 1000));
    return { 'retry-after': String(seconds) };
  }

  private retryAfter(fault: StatusFault): Record<string, string> {
    if (fault.retryAfterSeconds === undefined) return {};
    const value =
      fault.retryAfterForm === 'http-date'
        ? new Date(this.now() + fault.retryAfterSeconds * 1000).toUTCString()
        : String(fault.retryAfterSeconds);
    return { 'retry-after': value };
  }
}

/** Checks a fault configuration from a file, a flag or the admin API. */
export function validateFaults(value: unknown): FaultConfig {
  if (!isRecord(value)) throw new Error('faults must be a JSON object');
  const problems: string[] = [];
  for (const key of Object.keys(value)) if (!KEYS.has(key)) problems.push(`unknown fault ${key}`);
  const c = value as FaultConfig;
  const count = (name: string, v: unknown, min: number) => {
    if (v !== undefined && !(Number.isInteger(v) && (v as number) >= min)) {
      problems.push(`${name} must be an integer >= ${min}`);
    }
  };
  const share = (name: string, v: unknown) => {
    if (v !== undefined && !(typeof v === 'number' && v >= 0 && v <= 1)) {
      problems.push(`${name} must be a number in [0, 1]`);
    }
  };
  count('latencyMs', c.latencyMs, 0);
  count('latencyJitterMs', c.latencyJitterMs, 0);
  count('maxRecipients', c.maxRecipients, 1);
  count('maxBodyBytes', c.maxBodyBytes, 1);
  share('hangShare', c.hangShare);
  share('resetShare', c.resetShare);
  if (c.rateLimit !== undefined) {
    if (!isRecord(c.rateLimit)) problems.push('rateLimit must be { requests, windowMs }');
    else {
      count('rateLimit.requests', c.rateLimit.requests, 1);
      count('rateLimit.windowMs', c.rateLimit.windowMs, 1);
    }
  }
  let total = (c.hangShare ?? 0) + (c.resetShare ?? 0);
  if (c.statuses !== undefined) {
    if (!Array.isArray(c.statuses)) problems.push('statuses must be an array');
    else {
      for (const [i, s] of c.statuses.entries()) {
        if (!isRecord(s)) {
          problems.push(`statuses[${i}] must be an object`);
          continue;
        }
        count(`statuses[${i}].status`, s.status, 100);
        if (typeof s.status === 'number' && s.status > 599)
          problems.push(`statuses[${i}].status must be < 600`);
        share(`statuses[${i}].share`, s.share);
        count(`statuses[${i}].retryAfterSeconds`, s.retryAfterSeconds, 0);
        if (
          s.retryAfterForm !== undefined &&
          !['seconds', 'http-date'].includes(s.retryAfterForm)
        ) {
          problems.push(`statuses[${i}].retryAfterForm must be seconds or http-date`);
        }
        total += typeof s.share === 'number' ? s.share : 0;
      }
    }
  }
  if (total > 1 + 1e-9)
    problems.push('hangShare, resetShare and the status shares add up to more than 1');
  if (problems.length > 0) throw new Error(`invalid faults: ${problems.join('; ')}`);
  return structuredClone(c);
}
