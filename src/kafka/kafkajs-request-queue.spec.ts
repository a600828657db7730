import { createRequire } from 'node:module';

/**
 * patches/kafkajs+2.2.4.patch stops kafkajs' request queue (one per broker connection) from
 * scheduling a check when it has nothing to check: with nothing pending and nothing throttled,
 * the check's delay was negative (`throttledUntil` starts at -1), Node ran it after 1 ms, and
 * it scheduled itself again, a timer every millisecond per connection for as long as the
 * connection was open. A queued request must still go out, whatever held it back.
 */
const load = createRequire(__filename);

interface Entry {
  correlationId: number;
  apiName: string;
  resolve: (response: unknown) => void;
  reject: (error: unknown) => void;
}
interface RequestQueue {
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  pending: unknown[];
  push(request: { entry: Entry; expectResponse: boolean; sendRequest: () => void }): void;
  fulfillRequest(response: { correlationId: number; payload: Buffer; size: number }): void;
  checkPendingRequests(): void;
  maybeThrottle(clientSideThrottleTime: number): void;
  destroy(): void;
}
const RequestQueue = load('kafkajs/src/network/requestQueue') as new (options: {
  maxInFlightRequests: number | null;
  requestTimeout: number;
  enforceRequestTimeout: boolean;
  clientId: string;
  broker: string;
  logger: Record<'debug' | 'info' | 'warn' | 'error', () => void>;
}) => RequestQueue;

const quiet = { debug() {}, info() {}, warn() {}, error() {} };

/** Pushes a request that expects a response; resolves when the queue sends it. */
function sent(into: RequestQueue, correlationId: number): Promise<void> {
  return new Promise<void>((resolve) =>
    into.push({
      entry: { correlationId, apiName: 'Fetch', resolve: () => undefined, reject: () => undefined },
      expectResponse: true,
      sendRequest: resolve,
    }),
  );
}

describe('kafkajs request queue (patched)', () => {
  const queues: RequestQueue[] = [];
  /** A queue of one broker connection, destroyed after the test. */
  function queue(maxInFlightRequests: number | null = null): RequestQueue {
    const made = new RequestQueue({
      maxInFlightRequests,
      requestTimeout: 30_000,
      enforceRequestTimeout: false,
      clientId: 'spec',
      broker: 'localhost:9092',
      logger: quiet,
    });
    queues.push(made);
    return made;
  }
  let timers: jest.SpyInstance;
  beforeEach(() => (timers = jest.spyOn(global, 'setTimeout')));
  afterEach(() => {
    timers.mockRestore();
    for (const each of queues.splice(0)) each.destroy();
  });
  const negativeDelays = () => timers.mock.calls.filter(([, ms]) => (ms as number) < 0).length;

  it('schedules no check when nothing is pending and nothing is throttled', async () => {
    const idle = queue();
    idle.checkPendingRequests();
    await sent(idle, 1);
    idle.fulfillRequest({ correlationId: 1, payload: Buffer.alloc(0), size: 0 });

    expect(idle.throttleCheckTimeoutId).toBeNull();
    expect(timers).not.toHaveBeenCalled();
    expect(negativeDelays()).toBe(0);
  });

  it('sends a request held back by the in-flight limit when the one in flight is answered', async () => {
    const one = queue(1);
    await sent(one, 1);
    let secondSent = false;
    const second = sent(one, 2);
    void second.then(() => (secondSent = true));
    await Promise.resolve();
    expect(secondSent).toBe(false);
    expect(one.pending).toHaveLength(1);

    one.fulfillRequest({ correlationId: 1, payload: Buffer.alloc(0), size: 0 });
    await second;
    expect(one.pending).toHaveLength(0);
    expect(negativeDelays()).toBe(0);
  });

  it('sends a request held back by a throttle once it ends, and then stops checking', async () => {
    const throttled = queue();
    throttled.maybeThrottle(20);
    const held = sent(throttled, 1);
    expect(throttled.pending).toHaveLength(1);
    expect(throttled.throttleCheckTimeoutId).not.toBeNull();

    await held; // by the check scheduled for the throttle's end, with no response to trigger it
    expect(throttled.pending).toHaveLength(0);
    expect(throttled.throttleCheckTimeoutId).toBeNull();
    expect(negativeDelays()).toBe(0);
  });
});
