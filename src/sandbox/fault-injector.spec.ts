import { FaultInjector, validateFaults } from './fault-injector';

describe(FaultInjector.name, () => {
  const sequence = (...draws: number[]) => {
    let i = 0;
    return () => draws[i++ % draws.length];
  };

  it('passes everything, drawing nothing, when no fault is set', () => {
    const random = jest.fn(() => 0);
    const faults = new FaultInjector({}, random);
    expect(faults.decide()).toEqual({ kind: 'pass', latencyMs: 0 });
    expect(random).not.toHaveBeenCalled();
  });

  it('splits one draw between hang, reset and the statuses in that order', () => {
    const config = {
      hangShare: 0.1,
      resetShare: 0.1,
      statuses: [
        { status: 503, share: 0.2 },
        { status: 429, share: 0.1, retryAfterSeconds: 2 },
      ],
    };
    const faults = new FaultInjector(config, sequence(0.05, 0.15, 0.3, 0.45, 0.6));
    expect([1, 2, 3, 4, 5].map(() => faults.decide())).toEqual([
      { kind: 'hang' },
      { kind: 'reset', latencyMs: 0 },
      { kind: 'status', fault: 'status', status: 503, headers: {}, latencyMs: 0 },
      {
        kind: 'status',
        fault: 'status',
        status: 429,
        headers: { 'retry-after': '2' },
        latencyMs: 0,
      },
      { kind: 'pass', latencyMs: 0 },
    ]);
  });

  it('writes Retry-After as an HTTP-date when asked', () => {
    const now = Date.parse('2026-11-21T10:00:00Z');
    const faults = new FaultInjector(
      { statuses: [{ status: 503, share: 1, retryAfterSeconds: 30, retryAfterForm: 'http-date' }] },
      () => 0,
      () => now,
    );
    expect(faults.decide()).toMatchObject({
      headers: { 'retry-after': 'Sat, 21 Nov 2026 10:00:30 GMT' },
    });
  });

  it('adds fixed and random latency', () => {
    const faults = new FaultInjector({ latencyMs: 20, latencyJitterMs: 10 }, () => 0.5);
    expect(faults.decide()).toEqual({ kind: 'pass', latencyMs: 25 });
  });

  it('rate-limits per fixed window, telling when the window ends', () => {
    let now = 0;
    const faults = new FaultInjector(
      { rateLimit: { requests: 2, windowMs: 5000 } },
      Math.random,
      () => now,
    );
    expect([1, 2, 3].map(() => faults.decide().kind)).toEqual(['pass', 'pass', 'status']);
    now = 1500;
    expect(faults.decide()).toMatchObject({ status: 429, headers: { 'retry-after': '4' } });
    now = 5000;
    expect(faults.decide().kind).toBe('pass');
  });

  it('names the 413 limits', () => {
    const faults = new FaultInjector({ maxRecipients: 10, maxBodyBytes: 1000 });
    expect(faults.tooLarge(10, 1000)).toBeUndefined();
    expect(faults.tooLarge(11, 10)).toBe('at most 10 recipients per request');
    expect(faults.tooLarge(1, 1001)).toBe('at most 1000 bytes per request');
  });
});

describe(validateFaults.name, () => {
  it.each([
    [[], 'faults must be a JSON object'],
    [{ hangShare: -0.1 }, 'hangShare must be a number in [0, 1]'],
    [{ latencyMs: 1.5 }, 'latencyMs must be an integer >= 0'],
    [{ statuses: [{ status: 700, share: 0.1 }] }, 'statuses[0].status must be < 600'],
    [{ statuses: [{ status: 503, share: 0.6 }], resetShare: 0.5 }, 'add up to more than 1'],
    [{ rateLimit: { requests: 0, windowMs: 1000 } }, 'rateLimit.requests must be an integer >= 1'],
    [{ retry: true }, 'unknown fault retry'],
  ])('refuses %j', (config, message) => {
    expect(() => validateFaults(config)).toThrow(message);
  });

  it('returns a copy that later edits of the input cannot change', () => {
    const input = { statuses: [{ status: 503, share: 0.2 }] };
    const faults = validateFaults(input);
    input.statuses[0].share = 1;
    expect(faults.statuses?.[0].share).toBe(0.2);
  });
});
