import { Logger } from '@nestjs/common';
import { FakeClock, settle } from '../../test/support/fake-clock';
import { MetricsService } from '../metrics/metrics.service';
import { VendorGate, type GateState } from './vendor.gate';

const PAUSE_MS = 30_000;

/** Whether `promise` has settled yet, and how. */
function watch(promise: Promise<void>): { state: 'pending' | 'resolved' | 'rejected' } {
  const seen = { state: 'pending' as 'pending' | 'resolved' | 'rejected' };
  promise.then(
    () => (seen.state = 'resolved'),
    () => (seen.state = 'rejected'),
  );
  return seen;
}

describe(VendorGate.name, () => {
  let clock: FakeClock;
  let gate: VendorGate;
  let changes: GateState[];

  beforeAll(() => {
    Logger.overrideLogger(false);
  });
  beforeEach(() => {
    clock = new FakeClock();
    gate = new VendorGate(clock);
    changes = [];
    gate.onChange((state) => changes.push(state));
  });
  afterEach(() => gate.close());

  it('is open at first, and waitOpen returns at once', async () => {
    expect(gate.state).toEqual({ open: true });
    const wait = watch(gate.waitOpen());
    await settle();
    expect(wait.state).toBe('resolved');
  });

  it('closes on a trip for the pause, holds waiters, and reopens by itself when the pause is over', async () => {
    const start = clock.now();
    expect(gate.trip('outage', PAUSE_MS, 'HTTP 503')).toBe(true);
    expect(gate.state).toEqual({
      open: false,
      reason: 'outage',
      until: start + PAUSE_MS,
      origin: 'self',
    });
    const wait = watch(gate.waitOpen());

    await clock.advance(PAUSE_MS - 1);
    expect(wait.state).toBe('pending');
    expect(gate.state.open).toBe(false);

    await clock.advance(1);
    expect(wait.state).toBe('resolved');
    expect(gate.state).toEqual({ open: true });
    expect(changes).toEqual([
      { open: false, reason: 'outage', until: start + PAUSE_MS, origin: 'self' },
      { open: true },
    ]);
  });

  it('tells auth refusals from outages in its state', () => {
    gate.trip('auth', PAUSE_MS, 'status 401');
    expect(gate.state).toMatchObject({ open: false, reason: 'auth' });
  });

  it('extends an earlier close but never shortens it, and pauses consumption only once', async () => {
    const start = clock.now();
    expect(gate.trip('outage', PAUSE_MS, 'HTTP 503')).toBe(true);
    await clock.advance(10_000);
    // A shorter pause from now ends before the current one: nothing changes.
    expect(gate.trip('auth', 5_000, 'status 401')).toBe(false);
    expect(gate.state).toEqual({
      open: false,
      reason: 'outage',
      until: start + PAUSE_MS,
      origin: 'self',
    });
    // A longer one moves the reopening later; consumption was paused already.
    expect(gate.trip('auth', PAUSE_MS, 'status 401')).toBe(false);
    expect(gate.state).toEqual({
      open: false,
      reason: 'auth',
      until: start + 10_000 + PAUSE_MS,
      origin: 'self',
    });
    const wait = watch(gate.waitOpen());

    await clock.advance(PAUSE_MS - 10_000); // the first pause would have ended here
    expect(wait.state).toBe('pending');
    await clock.advance(10_000);
    expect(wait.state).toBe('resolved');
    expect(changes.map((c) => c.open)).toEqual([false, true]);
    expect(clock.pending).toBe(0); // the first pause's timer went with it
  });

  it('closes again on the next failure after reopening', async () => {
    gate.trip('outage', PAUSE_MS, 'HTTP 503');
    await clock.advance(PAUSE_MS);
    expect(gate.state.open).toBe(true);

    expect(gate.trip('outage', PAUSE_MS, 'HTTP 503')).toBe(true);
    expect(gate.state.open).toBe(false);
    const wait = watch(gate.waitOpen());
    await clock.advance(PAUSE_MS);
    expect(wait.state).toBe('resolved');
    expect(changes.map((c) => c.open)).toEqual([false, true, false, true]);
  });

  it('ends every wait at shutdown, and refuses new ones, without reopening', async () => {
    gate.trip('auth', PAUSE_MS, 'status 403');
    const waiting = gate.waitOpen();
    gate.close();
    await expect(waiting).rejects.toThrow(/shutting down/);
    await expect(gate.waitOpen()).rejects.toThrow(/shutting down/);
    expect(clock.pending).toBe(0);
    await clock.advance(PAUSE_MS);
    expect(gate.state.open).toBe(false);
  });

  it('closes for good at shutdown, telling its listeners (consumption pauses), and ignores trips', () => {
    gate.close();
    expect(gate.state).toMatchObject({ open: false, reason: 'stopping' });
    expect(changes.at(-1)).toMatchObject({ open: false, reason: 'stopping' });
    expect(gate.passable).toBe(false);
    expect(gate.trip('outage', PAUSE_MS, 'HTTP 503')).toBe(false);
    expect(gate.state).toMatchObject({ reason: 'stopping' });
    expect(clock.pending).toBe(0);
  });

  it('is what mailbridge_vendor_gate_closed shows, cause by cause, until it reopens', async () => {
    const metrics = new MetricsService();
    metrics.watchGate(() => gate.state);
    const closed = async () =>
      (await metrics.registry.getSingleMetric('mailbridge_vendor_gate_closed')!.get()).values.map(
        (v) => `${v.labels.cause}=${v.value}`,
      );

    expect(await closed()).toEqual(['auth=0', 'outage=0']);
    gate.trip('outage', PAUSE_MS, 'vendor answered 503');
    expect(await closed()).toEqual(['auth=0', 'outage=1']);
    gate.trip('auth', 2 * PAUSE_MS, 'status 401'); // a longer close for another cause
    expect(await closed()).toEqual(['auth=1', 'outage=0']);
    await clock.advance(2 * PAUSE_MS);
    expect(await closed()).toEqual(['auth=0', 'outage=0']);
  });
});
