import { Logger } from '@nestjs/common';
import { FakeClock, settle } from '../../test/support/fake-clock';
import type { GateCause, GateChannel, SharedClose } from '../cluster/gate-channel';
import { MetricsService } from '../metrics/metrics.service';
import { VendorGate } from './vendor.gate';

const PAUSE_MS = 30_000;

interface Standing {
  reason: GateCause;
  until: number;
  detail: string;
  origin: string;
}

/**
 * Redis as the replicas see it, in memory: one standing close kept in the hub's own time,
 * extended only, told to every subscribed channel with the time it has left.
 */
class FakeHub {
  time = 0;
  reachable = true;
  standing?: Standing;
  readonly channels: FakeChannel[] = [];

  close(reason: GateCause, pauseMs: number, detail: string, origin: string): SharedClose {
    const standing = this.current();
    if (!standing || standing.until < this.time + pauseMs) {
      this.standing = { reason, until: this.time + pauseMs, detail, origin };
      const close = this.left(this.standing);
      for (const channel of this.channels) if (channel.subscribed) channel.hear(close);
    }
    return this.left(this.standing!);
  }

  current(): Standing | undefined {
    return this.standing && this.standing.until > this.time ? this.standing : undefined;
  }

  left(standing: Standing): SharedClose {
    const { reason, detail, origin, until } = standing;
    return { reason, detail, origin, remainingMs: until - this.time };
  }
}

/** The channel a replica has to the hub; `subscribe` reads the standing close, as Redis's does. */
class FakeChannel implements GateChannel {
  subscribed = false;
  private readonly listeners: Array<(close: SharedClose) => void> = [];

  constructor(
    private readonly hub: FakeHub,
    readonly self: string,
  ) {
    hub.channels.push(this);
  }

  announce(reason: GateCause, pauseMs: number, detail: string) {
    if (!this.hub.reachable) return Promise.resolve(undefined);
    return Promise.resolve(this.hub.close(reason, pauseMs, detail, this.self));
  }

  listen(listener: (close: SharedClose) => void): void {
    this.listeners.push(listener);
  }

  subscribe(): void {
    this.subscribed = true;
    const standing = this.hub.current();
    if (standing) this.hear(this.hub.left(standing));
  }

  hear(close: SharedClose): void {
    if (close.origin === this.self) return;
    for (const listener of this.listeners) listener(close);
  }

  stop(): Promise<void> {
    this.subscribed = false;
    return Promise.resolve();
  }
}

/** A replica: its gate, on its own clock (replicas' clocks disagree), and what it logged. */
interface Replica {
  name: string;
  clock: FakeClock;
  gate: VendorGate;
  channel: FakeChannel;
  metrics: MetricsService;
}

describe('VendorGate shared between replicas', () => {
  let hub: FakeHub;
  let replicas: Replica[];
  let logged: Array<{ replica: string; level: string; message: string }>;

  /** Starts a replica whose clock reads `skewMs` off the others'. */
  function replica(name: string, skewMs: number): Replica {
    const clock = new FakeClock(Date.UTC(2030, 0, 1) + skewMs);
    const channel = new FakeChannel(hub, name);
    const gate = new VendorGate(clock, channel);
    const metrics = new MetricsService();
    metrics.watchGate(() => gate.state);
    gate.onClose((cause, origin) => metrics.vendorGateCloses.inc({ cause, origin }));
    const started = { name, clock, gate, channel, metrics };
    replicas.push(started);
    channel.subscribe();
    return started;
  }

  /** Time passes for everyone: the hub and every replica's clock. */
  async function advance(ms: number): Promise<void> {
    hub.time += ms;
    for (const r of replicas) await r.clock.advance(ms);
    await settle();
  }

  const open = () => replicas.map((r) => r.gate.state.open);
  const logOf = (name: string) => logged.filter((l) => l.replica === name).map((l) => l.message);

  beforeEach(() => {
    hub = new FakeHub();
    replicas = [];
    logged = [];
    // Which replica logged: each gate has its own Logger instance.
    for (const level of ['error', 'warn', 'log'] as const) {
      jest.spyOn(Logger.prototype, level).mockImplementation(function (
        this: Logger,
        ...[message]: unknown[]
      ) {
        const owner = replicas.find(
          (r) => (r.gate as unknown as { logger: Logger }).logger === this,
        );
        logged.push({ replica: owner?.name ?? '?', level, message: String(message) });
      });
    }
  });
  afterEach(() => {
    for (const r of replicas) r.gate.close();
    jest.restoreAllMocks();
  });

  it("adopts a peer's close: closed for the same cause until the same moment, and says so once", async () => {
    const a = replica('a', 0);
    const b = replica('b', 7_000); // b's clock is 7 s ahead
    const c = replica('c', -3_000);

    expect(a.gate.trip('auth', PAUSE_MS, 'status 401')).toBe(true);
    await settle();

    expect(open()).toEqual([false, false, false]);
    expect(b.gate.state).toEqual({
      open: false,
      reason: 'auth',
      until: b.clock.now() + PAUSE_MS,
      origin: 'peer',
    });
    expect(c.gate.state).toMatchObject({ reason: 'auth', origin: 'peer' });
    expect(a.gate.state).toMatchObject({ reason: 'auth', origin: 'self' });
    expect(logOf('b')).toEqual([
      `a peer replica reports the vendor refused the credentials (status 401); pausing consumption for ${PAUSE_MS} ms`,
    ]);
    expect(logOf('a')).toEqual([
      'vendor refused the credentials; check VENDOR_* keys (status 401); pausing consumption for 30000 ms',
    ]);
  });

  it('reopens every replica together, whatever its clock reads, and the next failure closes all again', async () => {
    const a = replica('a', 0);
    replica('b', 7_000);
    replica('c', -3_000);
    await advance(1_000);
    a.gate.trip('outage', PAUSE_MS, 'HTTP 503');
    await settle();

    await advance(PAUSE_MS - 1);
    expect(open()).toEqual([false, false, false]);
    await advance(1);
    expect(open()).toEqual([true, true, true]);
    for (const r of replicas) expect(logOf(r.name)).toContain('resuming: trying the vendor again');

    // The first to be refused after reopening closes it for everyone.
    replicas[2].gate.trip('outage', PAUSE_MS, 'HTTP 503');
    await settle();
    expect(open()).toEqual([false, false, false]);
    expect(replicas[0].gate.state).toMatchObject({ origin: 'peer' });
  });

  it('extends a close but never shortens it, on a peer as on the replica that closed it', async () => {
    const a = replica('a', 0);
    const b = replica('b', 7_000);
    a.gate.trip('auth', PAUSE_MS, 'status 401');
    await settle();
    await advance(10_000);

    // A shorter close from b ends before the standing one: neither gate moves.
    expect(b.gate.trip('outage', 5_000, 'HTTP 503')).toBe(false);
    await settle();
    expect(a.gate.state).toMatchObject({ reason: 'auth', until: a.clock.now() + 20_000 });
    expect(b.gate.state).toMatchObject({ reason: 'auth', until: b.clock.now() + 20_000 });

    // A longer one moves both reopenings later, without a second pause being logged.
    b.gate.trip('outage', PAUSE_MS, 'HTTP 503');
    await settle();
    expect(a.gate.state).toMatchObject({ reason: 'outage', until: a.clock.now() + PAUSE_MS });
    await advance(20_000); // the first close would have ended here
    expect(open()).toEqual([false, false]);
    await advance(PAUSE_MS - 20_000);
    expect(open()).toEqual([true, true]);
    expect(logOf('a').filter((m) => m.includes('pausing'))).toHaveLength(1);
    expect(logOf('b').filter((m) => m.includes('pausing'))).toHaveLength(1);
  });

  it("keeps its own longer close when it hears of a peer's shorter one", async () => {
    const a = replica('a', 0);
    const b = replica('b', 0);
    hub.reachable = false; // a closes on its own: nobody hears of it
    a.gate.trip('auth', PAUSE_MS, 'status 401');
    await settle();
    hub.reachable = true;

    b.gate.trip('outage', 1_000, 'HTTP 503');
    await settle();
    expect(a.gate.state).toMatchObject({ reason: 'auth', until: a.clock.now() + PAUSE_MS });
    await advance(1_000);
    expect(open()).toEqual([false, true]);
  });

  it('waits for a longer close a peer made when its own trip is told of it', async () => {
    const a = replica('a', 0);
    hub.standing = {
      reason: 'auth',
      until: hub.time + PAUSE_MS,
      detail: 'status 403',
      origin: 'x',
    };

    a.gate.trip('outage', 1_000, 'HTTP 503'); // a had not heard (it subscribed before)
    await settle();
    expect(a.gate.state).toMatchObject({ reason: 'auth', until: a.clock.now() + PAUSE_MS });
  });

  it('does not close again when the answer to its own close comes after it reopened', async () => {
    let answer!: (close: SharedClose) => void;
    const slow: GateChannel = {
      self: 'slow',
      announce: () => new Promise<SharedClose>((resolve) => (answer = resolve)),
      listen: () => undefined,
      stop: () => Promise.resolve(),
    };
    const clock = new FakeClock();
    const gate = new VendorGate(clock, slow);
    gate.trip('outage', 1_000, 'HTTP 503');
    await clock.advance(1_000);
    expect(gate.state.open).toBe(true);

    answer({ reason: 'outage', remainingMs: 500, detail: 'HTTP 503', origin: 'slow' });
    await settle();
    expect(gate.state.open).toBe(true);
    gate.close();
  });

  it('learns at start of a close announced before it subscribed', async () => {
    hub.time = 5_000;
    hub.standing = { reason: 'auth', until: 25_000, detail: 'status 401', origin: 'x' };
    const late = replica('late', 123_456);

    expect(late.gate.state).toEqual({
      open: false,
      reason: 'auth',
      until: late.clock.now() + 20_000,
      origin: 'peer',
    });
    expect(logOf('late')).toEqual([
      'a peer replica reports the vendor refused the credentials (status 401); pausing consumption for 20000 ms',
    ]);
    await advance(20_000);
    expect(late.gate.state.open).toBe(true);
  });

  it('still pauses on its own refusal when Redis cannot be reached', async () => {
    const a = replica('a', 0);
    const b = replica('b', 0);
    hub.reachable = false;

    expect(a.gate.trip('auth', PAUSE_MS, 'status 401')).toBe(true);
    await settle();
    expect(a.gate.state.open).toBe(false);
    expect(b.gate.state.open).toBe(true);
    await advance(PAUSE_MS);
    expect(a.gate.state.open).toBe(true);
  });

  it("shows a peer's close in mailbridge_vendor_gate_closed, and counts closes by origin", async () => {
    const a = replica('a', 0);
    const b = replica('b', 0);
    a.gate.trip('auth', PAUSE_MS, 'status 401');
    await settle();

    const samples = async (m: MetricsService, name: string) =>
      (await m.registry.getSingleMetric(name)!.get()).values
        .map((v) => `${Object.values(v.labels).join(',')}=${v.value}`)
        .sort();
    expect(await samples(b.metrics, 'mailbridge_vendor_gate_closed')).toEqual([
      'auth=1',
      'outage=0',
    ]);
    expect(await samples(b.metrics, 'mailbridge_vendor_gate_closes_total')).toEqual([
      'auth,peer=1',
    ]);
    expect(await samples(a.metrics, 'mailbridge_vendor_gate_closes_total')).toEqual([
      'auth,self=1',
    ]);
    await advance(PAUSE_MS);
    expect(await samples(b.metrics, 'mailbridge_vendor_gate_closed')).toEqual([
      'auth=0',
      'outage=0',
    ]);
  });
});
