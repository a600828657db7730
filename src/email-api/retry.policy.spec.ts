import { RetryPolicy, parseRetryAfter } from './retry.policy';
import { VendorError } from './vendor.errors';

const settings = {
  maxAttempts: 6,
  baseMs: 100,
  capMs: 1000,
  retryAfterMaxMs: 30_000,
  retryAmbiguous: true,
};
const retriable = (retryAfterMs?: number) =>
  new VendorError('vendor answered 503', true, 503, { retryAfterMs });

describe(RetryPolicy.name, () => {
  const policy = (random: number) =>
    new RetryPolicy(settings, {
      random: () => random,
      sleep: () => Promise.resolve(),
      warn: () => undefined,
    });

  it('draws the full-jitter delay from [0, min(cap, base × 2^(n-1)))', () => {
    const top = policy(0.999999);
    expect([1, 2, 3, 4, 5].map((n) => top.delayAfter(n, retriable()))).toEqual([
      99, 199, 399, 799, 999,
    ]);
    expect(policy(0).delayAfter(3, retriable())).toBe(0);
  });

  it('never waits less than Retry-After, and gives up when it is too long', () => {
    expect(policy(0.5).delayAfter(1, retriable(2000))).toBe(2000);
    expect(policy(0.5).delayAfter(5, retriable(10))).toBe(500);
    expect(policy(0.5).delayAfter(1, retriable(30_001))).toBeUndefined();
  });

  it('retries a request whose fate is unknown only when the policy says so', () => {
    const lost = new VendorError('headers timeout', true, undefined, { ambiguous: true });
    expect(policy(0.5).delayAfter(1, lost)).toBe(50);
    const atMostOnce = new RetryPolicy(
      { ...settings, retryAmbiguous: false },
      { random: () => 0.5, sleep: () => Promise.resolve(), warn: () => undefined },
    );
    expect(atMostOnce.delayAfter(1, lost)).toBeUndefined();
    expect(atMostOnce.delayAfter(1, retriable())).toBe(50);
  });

  it('counts the failed attempts that may have reached the vendor', async () => {
    let calls = 0;
    const outcome = await policy(0).run('send', () => {
      calls++;
      if (calls === 1) throw new VendorError('reset', true, undefined, { ambiguous: true });
      if (calls === 2) throw retriable();
      return Promise.resolve('ok');
    });
    expect(outcome).toEqual({ ok: true, value: 'ok', attempts: 3, ambiguousAttempts: 1 });
  });

  it('stops after the last attempt and on permanent errors', () => {
    expect(policy(0.5).delayAfter(6, retriable())).toBeUndefined();
    expect(policy(0.5).delayAfter(1, new VendorError('400', false, 400))).toBeUndefined();
  });

  it('runs an operation until it succeeds, counting attempts and sleeping between them', async () => {
    const sleeps: number[] = [];
    const warnings: string[] = [];
    const retry = new RetryPolicy(settings, {
      random: () => 0.5,
      sleep: (ms) => {
        sleeps.push(ms);
        return Promise.resolve();
      },
      warn: (m) => warnings.push(m),
    });
    let calls = 0;

    const outcome = await retry.run('campaign send', () =>
      ++calls < 3 ? Promise.reject(retriable()) : Promise.resolve('done'),
    );

    expect(outcome).toEqual({ ok: true, value: 'done', attempts: 3, ambiguousAttempts: 0 });
    expect(sleeps).toEqual([50, 100]);
    expect(warnings[0]).toBe(
      'campaign send: attempt 1/6 failed (VendorError 503); retrying in 50 ms',
    );
  });

  it('turns an unexpected exception into a permanent VendorError that keeps the cause', async () => {
    const bug = new TypeError('boom');

    const outcome = await policy(0.5).run('campaign send', () => Promise.reject(bug));

    expect(outcome).toMatchObject({ ok: false, attempts: 1 });
    expect(!outcome.ok && outcome.error.cause).toBe(bug);
  });
});

describe(parseRetryAfter.name, () => {
  const now = Date.parse('2026-11-21T10:00:00Z');

  it.each([
    ['delay-seconds', '120', 120_000],
    ['zero seconds', '0', 0],
    ['an HTTP-date', 'Sat, 21 Nov 2026 10:00:05 GMT', 5000],
    ['an HTTP-date in the past', 'Sat, 21 Nov 2026 09:00:00 GMT', 0],
    ['the first of repeated headers', ['3', '9'], 3000],
    ['nothing', undefined, undefined],
    ['a fraction', '1.5', undefined],
    ['a negative number', '-3', undefined],
    ['garbage', 'soon', undefined],
  ])('reads %s', (_, value, expected) => {
    expect(parseRetryAfter(value, now)).toBe(expected);
  });
});
