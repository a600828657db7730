import type { GateState } from '../delivery/vendor.gate';
import { ConsumerStatus } from '../inbound/consumer-status';
import { LivenessCheck, type GateView, type WaitView } from './liveness.check';

const STALL_MS = 300_000;

class FakeGate implements GateView {
  state: GateState = { open: true };
  private listener?: (state: GateState) => void;

  onChange(listener: (state: GateState) => void): void {
    this.listener = listener;
  }

  set(state: GateState): void {
    this.state = state;
    this.listener?.(state);
  }
}

class FakeDependency implements WaitView {
  available = true;
  private listener?: (available: boolean) => void;

  onChange(listener: (available: boolean) => void): void {
    this.listener = listener;
  }

  set(available: boolean): void {
    this.available = available;
    this.listener?.(available);
  }
}

function setUp() {
  let now = 1_000_000;
  const clock = {
    now: () => now,
    advance: (ms: number) => (now += ms),
  };
  const status = new ConsumerStatus();
  const gate = new FakeGate();
  const check = new LivenessCheck(status, gate, STALL_MS, clock.now);
  return { status, gate, check, clock };
}

describe(LivenessCheck.name, () => {
  it('is alive while nothing waits, however long nothing happens', () => {
    const { check, clock } = setUp();
    clock.advance(10 * STALL_MS);
    expect(check.problem()).toBeUndefined();
  });

  it('fails once fetched records made no progress for the stall time with the gate open', () => {
    const { status, check, clock } = setUp();
    status.fetched('t', 0, '0', '9', clock.now());
    clock.advance(STALL_MS - 1);
    expect(check.problem()).toBeUndefined();
    clock.advance(1);
    expect(check.problem()).toMatch(/no record finished for 300 s/);
  });

  it('restarts the stall clock with every finished record, and clears it once all finished', () => {
    const { status, check, clock } = setUp();
    status.fetched('t', 0, '0', '1', clock.now());
    clock.advance(STALL_MS - 1);
    status.finished('t', 0, '1', clock.now());
    clock.advance(STALL_MS - 1);
    expect(check.problem()).toBeUndefined();
    status.finished('t', 0, '2', clock.now());
    clock.advance(10 * STALL_MS);
    expect(check.problem()).toBeUndefined(); // caught up: nothing waits
  });

  it('does not count time while the vendor gate is closed, nor before it opened again', () => {
    const { status, gate, check, clock } = setUp();
    status.fetched('t', 0, '0', '9', clock.now());
    gate.set({ open: false, reason: 'outage', until: clock.now() + 2 * STALL_MS, origin: 'self' });
    clock.advance(2 * STALL_MS);
    expect(check.problem()).toBeUndefined(); // waiting for the vendor is not a stall
    gate.set({ open: true });
    clock.advance(STALL_MS - 1);
    expect(check.problem()).toBeUndefined();
    clock.advance(1);
    expect(check.problem()).toBeDefined();
  });

  it('does not count time while a dependency is unreachable, nor before it came back', () => {
    const { status, check, clock } = setUp();
    const redis = new FakeDependency();
    check.alsoWaitFor(redis);
    status.fetched('t', 0, '0', '9', clock.now());
    redis.set(false);
    clock.advance(10 * STALL_MS);
    expect(check.problem()).toBeUndefined(); // a new process would wait for Redis the same
    redis.set(true);
    clock.advance(STALL_MS - 1);
    expect(check.problem()).toBeUndefined();
    clock.advance(1);
    expect(check.problem()).toMatch(/no record finished/);
  });

  it('keeps the stall clock across a consumer restart that fetches the same records again', () => {
    const { status, check, clock } = setUp();
    status.fetched('t', 0, '5', '9', clock.now());
    clock.advance(STALL_MS / 2);
    status.fetched('t', 0, '5', '9', clock.now()); // redelivered after a crash: not progress
    clock.advance(STALL_MS / 2);
    expect(check.problem()).toBeDefined();
  });

  it('forgets the work of partitions given away in a rebalance', () => {
    const { status, check, clock } = setUp();
    status.fetched('t', 0, '0', '9', clock.now());
    status.assigned({ t: [1] });
    clock.advance(2 * STALL_MS);
    expect(check.problem()).toBeUndefined();
  });

  describe('a member its group dropped', () => {
    const SESSION_MS = 30_000;
    function joined() {
      const setup = setUp();
      setup.status.watchMembership(SESSION_MS);
      setup.status.markJoined(setup.clock.now());
      return setup;
    }

    it('fails once it has been out of its group for the stall time', () => {
      const { check, clock } = joined();
      clock.advance(SESSION_MS + STALL_MS - 1);
      expect(check.problem()).toBeUndefined();
      clock.advance(1);
      expect(check.problem()).toMatch(/dropped from its consumer group 300 s ago/);
    });

    it('is alive for as long as the group hears its heartbeats', () => {
      const { status, check, clock } = joined();
      for (let i = 0; i < 1_000; i++) {
        clock.advance(3_000);
        status.heard(clock.now());
      }
      expect(status.droppedSince(clock.now())).toBeUndefined();
      expect(check.problem()).toBeUndefined();
    });

    it('does not count time while the broker is unreachable, nor before it came back', () => {
      const { check, clock } = joined();
      const broker = new FakeDependency();
      check.alsoWaitFor(broker);
      broker.set(false);
      clock.advance(10 * STALL_MS);
      expect(check.problem()).toBeUndefined();
      broker.set(true);
      clock.advance(STALL_MS - 1);
      expect(check.problem()).toBeUndefined();
      clock.advance(1);
      expect(check.problem()).toMatch(/dropped from its consumer group/);
    });
  });

  it('fails at once when the consumer crashed and will not be restarted', () => {
    const { status, check } = setUp();
    status.markFailed('consumer crashed (restart: false): KafkaJSNonRetriableError');
    expect(check.problem()).toMatch(/will not restart.*KafkaJSNonRetriableError/);
    expect(status.ready).toBe(false);
  });
});
