import { Logger } from '@nestjs/common';
import type { IHeaders } from 'kafkajs';
import { FakeClock } from '../../test/support/fake-clock';
import { MemoryWindowStore } from './memory-window.store';
import type { ListWindow, WindowEntry } from './window.store';
import type { AppConfig } from '../config/app-config';
import type { ActionOutcome } from '../contracts/action-outcome';
import { ContactListBatcher } from '../delivery/contact-list.batcher';
import { ContactListDelivery } from '../delivery/contact-list.delivery';
import { VendorGate } from '../delivery/vendor.gate';
import { VendorTrouble } from '../delivery/vendor-trouble';
import type { ContactListHooks } from '../email-api/vendor.client';
import { VendorError } from '../email-api/vendor.errors';
import type { ContactListRequest } from '../email-api/vendor.types';
import type { InstanceLiveness } from '../idempotency/instance-liveness';
import { MemoryIdempotencyStore } from '../idempotency/memory-idempotency.store';
import { MetricsService } from '../metrics/metrics.service';
import type { ResultPublisher } from '../outbound/result.publisher';
import { AddressKeyer } from '../suppression/address-key';
import { MemorySuppressionStore } from '../suppression/memory-suppression.store';
import { SuppressionList } from '../suppression/suppression-list';
import { WindowCloser } from './window.closer';

const LINGER = 1_000;
const INSTANCE_TTL = 9_000;

interface Published {
  eventId: string;
  outcome: ActionOutcome;
  key: Buffer | null;
  headers: IHeaders;
}

/**
 * The vendor's contact-list endpoint behind the client, answering what the spec scripts (created
 * by default). Like the client, it calls `beforeWrite` (token held) just before the write.
 */
class Vendor {
  readonly requests: ContactListRequest[] = [];
  answers: Array<Error | 'hold'> = [];
  held?: () => void;
  async createContactList(request: ContactListRequest, hooks?: ContactListHooks) {
    await hooks?.beforeWrite?.();
    this.requests.push(request);
    const answer = this.answers.shift();
    if (answer instanceof Error) throw answer;
    const created = { id: `list-${this.requests.length}`, ambiguousAttempts: 0 };
    if (answer === 'hold') {
      return new Promise<typeof created>((resolve) => (this.held = () => resolve(created)));
    }
    return created;
  }
}

function setUp(policy: 'resend' | 'fail' = 'resend') {
  const clock = new FakeClock();
  const config = {
    idempotency: { ambiguousSendPolicy: policy, instanceTtlMs: INSTANCE_TTL },
    batching: {
      pauseOnAuthFailureMs: 5,
      pauseOnVendorFailureMs: 5,
      contactListLatePolicy: 'follow-up',
    },
  } as unknown as AppConfig;
  const windows = new MemoryWindowStore(
    { lingerMs: LINGER, maxMembers: 100, latePolicy: 'follow-up', retentionSeconds: 3600 },
    () => clock.now(),
  );
  const claims = new MemoryIdempotencyStore(3600, () => clock.now());
  const vendor = new Vendor();
  const metrics = new MetricsService();
  const gate = new VendorGate(clock);
  const suppression = new SuppressionList(
    new MemorySuppressionStore(),
    new AddressKeyer('a-key-for-the-spec-only-32-characters'),
  );
  const delivery = new ContactListDelivery(
    new ContactListBatcher(vendor),
    claims,
    new VendorTrouble(config, gate, metrics),
    suppression,
  );
  const published: Published[] = [];
  const publisher = {
    publishResult: (
      event: { id: string },
      _template: string,
      outcome: ActionOutcome,
      source: { key: Buffer | null; headers: IHeaders },
    ) => {
      published.push({ eventId: event.id, outcome, ...source });
      return Promise.resolve();
    },
  } as unknown as ResultPublisher;
  const closer = (instance: string) =>
    new WindowCloser(
      config,
      windows,
      claims,
      delivery,
      publisher,
      metrics,
      { id: instance } as InstanceLiveness,
      suppression,
      clock,
    );
  const window = (endIn: number): ListWindow => ({ name: 'l-window', end: clock.now() + endIn });
  const add = (w: ListWindow, n: number): Promise<unknown> => {
    const entry: WindowEntry = {
      window: w,
      present: w,
      order: {
        ref: `o${n}:new-customers`,
        eventId: `o${n}`,
        eventType: 'order.placed.v1',
        template: 'new-customers',
        key: Buffer.from(`order-${n}`).toString('base64'),
        headers: { traceparent: `tp-${n}` },
        addressKey: suppression.keyOf(`b${n}@example.com`),
        category: 'marketing',
      },
      address: `b${n}@example.com`,
      member: { email: `b${n}@example.com` },
    };
    return windows.add(entry);
  };
  const outcomeOf = async (n: number) => {
    const claim = await claims.claim(`o${n}:new-customers`, { instance: 'x', handling: 'y' }, 1);
    return claim.kind === 'done' ? claim.outcome : claim.kind;
  };
  return {
    clock,
    windows,
    vendor,
    published,
    closer,
    window,
    add,
    outcomeOf,
    metrics,
    gate,
    suppression,
  };
}

describe(WindowCloser.name, () => {
  beforeAll(() => {
    Logger.overrideLogger(false);
  });
  afterEach(() => jest.restoreAllMocks());

  it('creates a list once its window is due, records and publishes every order’s result', async () => {
    const { clock, vendor, published, closer, window, add, outcomeOf, metrics } = setUp();
    const logged: unknown[] = [];
    jest.spyOn(Logger.prototype, 'log').mockImplementation((line: unknown) => logged.push(line));
    const gauge = async (name: string) =>
      (await metrics.registry.getSingleMetric(name)?.get())?.values[0]?.value;
    const w = window(5_000);
    await add(w, 1);
    await add(w, 2);
    const c = closer('r1');
    c.onApplicationBootstrap();
    await clock.advance(5_000 + LINGER - 1);
    expect(vendor.requests).toHaveLength(0);
    // What is open, as an operator sees it while the window gathers.
    expect(await gauge('mailbridge_contact_list_windows_open')).toBe(1);
    expect(await gauge('mailbridge_contact_list_window_members')).toBe(2);
    await clock.advance(1_000); // its next look, at most a second later
    expect(vendor.requests).toEqual([
      { name: 'l-window', members: [{ email: 'b1@example.com' }, { email: 'b2@example.com' }] },
    ]);
    const created = { status: 'created', listId: 'list-1', name: 'l-window', memberCount: 2 };
    expect(published.map((p) => [p.eventId, p.outcome])).toEqual([
      ['o1', created],
      ['o2', created],
    ]);
    // Each result goes out keyed and traced like the order it answers.
    expect(published[0].key).toEqual(Buffer.from('order-1'));
    expect(published[0].headers).toEqual({ traceparent: 'tp-1' });
    expect(await outcomeOf(1)).toEqual(created);
    await clock.advance(10_000);
    expect(vendor.requests).toHaveLength(1);
    expect(await gauge('mailbridge_contact_list_windows_open')).toBe(0);
    expect(await gauge('mailbridge_contact_list_windows_closed_total')).toBe(1);
    // The line an operator finds it by.
    expect(logged).toContainEqual(
      expect.objectContaining({
        msg: 'contact list l-window created: 2 members, 2 results published',
        listId: 'list-1',
      }),
    );
    await c.beforeApplicationShutdown();
  });

  it('leaves suppressed and erased members out of the list, and tells their orders why', async () => {
    const { clock, vendor, published, closer, window, add, windows, suppression } = setUp();
    const w = window(1_000);
    for (const n of [1, 2, 3]) await add(w, n);
    await suppression.add('B2@example.com', 'marketing', 'unsubscribed');
    await suppression.add('b3@example.com', 'all', 'erased');
    expect(await windows.forget('b3@example.com')).toBe(1);
    const c = closer('r1');
    c.onApplicationBootstrap();
    await clock.advance(1_000 + LINGER + 1_000);
    expect(vendor.requests).toEqual([{ name: 'l-window', members: [{ email: 'b1@example.com' }] }]);
    const suppressed = {
      status: 'failed',
      errorCode: 'INVALID_REQUEST',
      reasonCode: 'SUPPRESSED',
      suppressedCount: 1,
      message: 'not sent: the member is on the suppression list',
    };
    expect(published.map((p) => [p.eventId, p.outcome])).toEqual([
      [
        'o1',
        {
          status: 'created',
          listId: 'list-1',
          name: 'l-window',
          memberCount: 1,
          suppressedCount: 1,
        },
      ],
      ['o2', suppressed],
      ['o3', suppressed],
    ]);
    expect(JSON.stringify(published)).not.toContain('example.com');
    await c.beforeApplicationShutdown();
  });

  it('creates no list when its only member was erased from it', async () => {
    const { clock, vendor, published, closer, window, add, windows, suppression } = setUp();
    const w = window(1_000);
    await add(w, 1);
    await suppression.add('b1@example.com', 'marketing', 'erased');
    await windows.forget('b1@example.com');
    const c = closer('r1');
    c.onApplicationBootstrap();
    await clock.advance(1_000 + LINGER + 1_000);
    expect(vendor.requests).toEqual([]);
    expect(published.map((p) => [p.eventId, p.outcome])).toEqual([
      ['o1', expect.objectContaining({ status: 'failed', reasonCode: 'SUPPRESSED' })],
    ]);
    await c.beforeApplicationShutdown();
  });

  it('creates no list when every member is suppressed', async () => {
    const { clock, vendor, published, closer, window, add, suppression } = setUp();
    const w = window(1_000);
    await add(w, 1);
    await suppression.add('b1@example.com', 'all', 'bounced');
    const c = closer('r1');
    c.onApplicationBootstrap();
    await clock.advance(1_000 + LINGER + 1_000);
    expect(vendor.requests).toEqual([]);
    expect(published.map((p) => p.outcome)).toEqual([
      expect.objectContaining({ status: 'failed', reasonCode: 'SUPPRESSED' }),
    ]);
    await c.beforeApplicationShutdown();
  });

  it('waits for a day-long window without a timer of a day: it looks again every second', async () => {
    const { clock, vendor, closer, window, add, published } = setUp();
    const day = window(86_400_000);
    await add(day, 1);
    const c = closer('r1');
    c.onApplicationBootstrap();
    await clock.advance(3_600_000);
    expect(clock.furthestMs).toBeLessThanOrEqual(1_000);
    expect(vendor.requests).toHaveLength(0);
    await clock.advance(86_400_000 - 3_600_000 + LINGER + 1_000);
    expect(vendor.requests).toHaveLength(1);
    expect(published).toHaveLength(1);
    await c.beforeApplicationShutdown();
  });

  it('finishes a list a stopped replica created, from its stored id, without creating it again', async () => {
    const { clock, windows, vendor, published, closer, window, add, metrics } = setUp();
    const warned: unknown[] = [];
    jest.spyOn(Logger.prototype, 'warn').mockImplementation((line: unknown) => warned.push(line));
    const w = window(0);
    await add(w, 1);
    await clock.advance(LINGER);
    // A replica took it, created it, stored the id, and died before publishing.
    await windows.take('dead', INSTANCE_TTL);
    await windows.markSending(w.name, 'dead');
    await windows.created(w.name, 'dead', 'list-earlier', false);
    const c = closer('r2');
    c.onApplicationBootstrap();
    await clock.advance(INSTANCE_TTL + 1_000);
    expect(vendor.requests).toHaveLength(0);
    expect(published.map((p) => p.outcome)).toEqual([
      { status: 'created', listId: 'list-earlier', name: w.name, memberCount: 1 },
    ]);
    expect(warned).toContainEqual(
      expect.objectContaining({
        msg: `taking over contact list ${w.name} from a replica that stopped`,
      }),
    );
    const takeovers = await metrics.registry
      .getSingleMetric('mailbridge_contact_list_window_takeovers_total')
      ?.get();
    expect(takeovers?.values[0]?.value).toBe(1);
    await c.beforeApplicationShutdown();
  });

  /** A replica took the list, marked it `sending` and died; r2 takes it over. */
  async function takenOverWhileSending(policy: 'resend' | 'fail') {
    const { clock, windows, vendor, published, closer, window, add } = setUp(policy);
    const w = window(0);
    await add(w, 1);
    await clock.advance(LINGER);
    await windows.take('dead', INSTANCE_TTL);
    await windows.markSending(w.name, 'dead');
    const c = closer('r2');
    c.onApplicationBootstrap();
    await clock.advance(INSTANCE_TTL + 1_000);
    await c.beforeApplicationShutdown();
    return { requests: vendor.requests.length, outcomes: published.map((p) => p.outcome) };
  }

  it('creates again a list a replica died sending, flagged ambiguous, under policy resend', async () => {
    const { requests, outcomes } = await takenOverWhileSending('resend');
    expect(requests).toBe(1);
    expect(outcomes).toEqual([expect.objectContaining({ status: 'created', ambiguous: true })]);
  });

  it('fails every order of a list a replica died sending as AMBIGUOUS_SEND under policy fail', async () => {
    const { requests, outcomes } = await takenOverWhileSending('fail');
    expect(requests).toBe(0);
    expect(outcomes).toEqual([
      expect.objectContaining({ status: 'failed', errorCode: 'AMBIGUOUS_SEND', ambiguous: true }),
    ]);
  });

  it('fails every order of a list the vendor refuses for good, and tries again after trouble', async () => {
    const { clock, vendor, published, closer, window, add } = setUp();
    const w = window(0);
    await add(w, 1);
    await add(w, 2);
    vendor.answers = [
      new VendorError('vendor answered 503', true, 503),
      new VendorError('vendor answered 422', false, 422),
    ];
    const c = closer('r1');
    c.onApplicationBootstrap();
    await clock.advance(LINGER + 1_000);
    await clock.advance(10);
    expect(vendor.requests).toHaveLength(2); // the outage paused it; then refused for good
    expect(published.map((p) => [p.eventId, p.outcome.status])).toEqual([
      ['o1', 'failed'],
      ['o2', 'failed'],
    ]);
    await c.beforeApplicationShutdown();
  });

  it('keeps a list from other replicas while its owner renews the lease, however long the vendor takes', async () => {
    const { clock, vendor, published, closer, window, add } = setUp();
    const w = window(0);
    await add(w, 1);
    vendor.answers = ['hold'];
    const first = closer('r1');
    first.onApplicationBootstrap();
    await clock.advance(LINGER + 1_000);
    expect(vendor.requests).toHaveLength(1); // r1 waits for the vendor's answer
    const second = closer('r2');
    second.onApplicationBootstrap();
    await clock.advance(5 * INSTANCE_TTL); // five leases long: r1 renews, r2 never takes it
    vendor.held?.();
    await clock.advance(1_000);
    expect(vendor.requests).toHaveLength(1);
    expect(published).toHaveLength(1);
    await Promise.all([first.beforeApplicationShutdown(), second.beforeApplicationShutdown()]);
  });

  it('gives the list in hand back at a stop, due at once, keeping what it reached', async () => {
    const { clock, windows, vendor, closer, window, add, gate } = setUp();
    const w = window(0);
    await add(w, 1);
    // Waiting for the gate (nothing sent): given back open.
    gate.trip('outage', 60_000, 'spec');
    const waiting = closer('r1');
    waiting.onApplicationBootstrap();
    await clock.advance(LINGER + 1_000);
    const stopping = waiting.beforeApplicationShutdown();
    await clock.advance(5_000);
    await stopping;
    expect(vendor.requests).toHaveLength(0);
    expect(await windows.take('r2', INSTANCE_TTL)).toMatchObject({
      name: w.name,
      maybeSent: false,
    });
    await windows.giveBack(w.name, 'r2', clock.now());

    // Waiting for the vendor's answer (the request written): given back as maybe sent.
    gate.close();
    const again = setUp();
    await again.add(again.window(0), 2);
    again.vendor.answers = ['hold'];
    const sending = again.closer('r1');
    sending.onApplicationBootstrap();
    await again.clock.advance(LINGER + 1_000);
    expect(again.vendor.requests).toHaveLength(1);
    const stop = sending.beforeApplicationShutdown();
    await again.clock.advance(5_000);
    await stop;
    expect(await again.windows.take('r2', INSTANCE_TTL)).toMatchObject({ maybeSent: true });
  });
});
