import { Logger } from '@nestjs/common';
import type { Counter } from 'prom-client';
import { FakeClock, settle } from '../../test/support/fake-clock';
import type { AppConfig } from '../config/app-config';
import type { ActionOutcome, RecordedOutcome } from '../contracts/action-outcome';
import type { InboundEvent } from '../contracts/inbound-contracts';
import type { ActionTicket } from '../delivery/action-ticket';
import type { CampaignDelivery } from '../delivery/campaign.delivery';
import type { ContactListDelivery } from '../delivery/contact-list.delivery';
import type { WindowOrder } from '../windows/window.store';
import type { WindowPlacement } from '../windows/window.placement';
import { ClaimLostError } from '../idempotency/claim-lost.error';
import type { ClaimHolder, ClaimResult } from '../idempotency/idempotency.store';
import type { InstanceLiveness } from '../idempotency/instance-liveness';
import { MemoryIdempotencyStore } from '../idempotency/memory-idempotency.store';
import { MetricsService } from '../metrics/metrics.service';
import type { ResultPublisher } from '../outbound/result.publisher';
import { ActionRunner, type PlannedAction } from './action.runner';
import type { EventSource } from './dispatch-outcome';

const CLAIM_TTL_MS = 30_000;
const ME = 'instance-me';
const event = { id: 'evt-1', type: 'user.signed_up.v1' } as unknown as InboundEvent;
const KEY = `${event.id}:welcome`;
const source: EventSource = {
  key: null,
  headers: {},
  topic: 'user.signed_up.v1',
  partition: 0,
  offset: '42',
};
const planned: PlannedAction = {
  template: {
    name: 'welcome',
    eventType: 'user.signed_up.v1',
    category: 'transactional',
    plan: () => planned.action,
  },
  action: {
    kind: 'campaign',
    batchKey: 'welcome',
    content: { subject: 'Hi', body: 'Hi' },
    recipients: [{ email: 'ada@example.com' }],
  },
};
const sent = (requestId: string): ActionOutcome => ({
  status: 'sent',
  requestIds: [requestId],
  message: 'queued',
  recipientCount: 1,
  batchRecipientCount: 1,
});
const stranger = (name: string): ClaimHolder => ({ instance: name, handling: `${name}-h` });

/**
 * Campaign and contact-list delivery, and window placement, whose calls stay in flight until
 * the spec answers them, in any order.
 */
class HeldDelivery {
  readonly calls: Array<{
    kind: string;
    ticket: ActionTicket;
    /** What a window's placement was given to publish the order's result later. */
    order?: WindowOrder;
    answer: (outcome: RecordedOutcome) => void;
    fail: (error: Error) => void;
  }> = [];

  /** `CampaignDelivery.deliver` and `ContactListDelivery.deliver`. */
  deliver(action: { kind: string }, ticket: ActionTicket): Promise<RecordedOutcome> {
    return new Promise((answer, fail) =>
      this.calls.push({ kind: action.kind, ticket, answer, fail }),
    );
  }

  /** `WindowPlacement.place`, held the same way (the spec gives it as the runner's windows). */
  place(_action: unknown, order: WindowOrder): Promise<RecordedOutcome> {
    const ticket = {
      claim: { key: order.ref, holder: stranger('window') },
      category: 'marketing' as const,
      ambiguous: false,
    };
    return new Promise((answer, fail) =>
      this.calls.push({ kind: 'window', ticket, order, answer, fail }),
    );
  }
}

/** What was published, and what the store said of the key at that moment. */
interface Published {
  template: string;
  outcome: ActionOutcome;
  storeHad: ClaimResult['kind'];
}

async function count(counter: Counter, labels: Record<string, string> = {}): Promise<number> {
  const { values } = await counter.get();
  const match = values.find((v) =>
    Object.entries(labels).every(([k, value]) => v.labels[k] === value),
  );
  return match?.value ?? 0;
}

/** Whether `promise` has settled yet. */
function watch<T>(promise: Promise<T>): { settled: boolean } {
  const seen = { settled: false };
  promise.then(
    () => (seen.settled = true),
    () => (seen.settled = true),
  );
  return seen;
}

function setUp(policy: 'resend' | 'fail' = 'resend') {
  const clock = new FakeClock();
  const store = new MemoryIdempotencyStore(3600, () => clock.now());
  const delivery = new HeldDelivery();
  const metrics = new MetricsService();
  const published: Published[] = [];
  const publishResult = async (_event: InboundEvent, template: string, outcome: ActionOutcome) => {
    const { kind } = await store.claim(KEY, stranger('observer'), 1);
    published.push({ template, outcome, storeHad: kind });
  };
  const publisher = { publishResult } as unknown as ResultPublisher;
  const config = {
    idempotency: { claimTtlMs: CLAIM_TTL_MS, ambiguousSendPolicy: policy },
  } as unknown as AppConfig;
  let handlings = 0;
  const runner = new ActionRunner(
    config,
    store,
    delivery as unknown as CampaignDelivery,
    delivery as unknown as ContactListDelivery,
    delivery as unknown as WindowPlacement,
    publisher,
    metrics,
    { id: ME, nextHandling: () => `h${(handlings += 1)}` } as unknown as InstanceLiveness,
    clock,
  );
  // This process is alive for the whole spec, as InstanceLiveness keeps it.
  void store.heartbeat(ME, 24 * 3_600_000);
  return { clock, store, delivery, metrics, published, publisher, runner };
}

/**
 * A delivery that throws: the action's claim is given back (the next handling may run it at
 * once, rather than wait out the claim), the error reaches the caller, nothing is published and
 * nothing is left renewing.
 */
async function expectFailureReleasesClaim(action: PlannedAction, message: string): Promise<void> {
  const { clock, delivery, published, runner, store } = setUp();
  const running = runner.run(event, action, source);
  await settle();
  delivery.calls[0].fail(new Error(message));

  await expect(running).rejects.toThrow(message);
  expect(published).toHaveLength(0);
  expect(await store.claim(KEY, stranger('next'), CLAIM_TTL_MS)).toEqual({ kind: 'claimed' });
  expect(clock.pending).toBe(0);
}

describe(ActionRunner.name, () => {
  beforeAll(() => {
    Logger.overrideLogger(false);
  });

  it('records the outcome once, itself: delivery only returns it', async () => {
    const { delivery, runner, store } = setUp();
    const complete = jest.spyOn(store, 'complete');
    const running = runner.run(event, planned, source);
    await settle();
    delivery.calls[0].answer(sent('req-1'));
    expect(await running).toBe('sent');
    expect(complete.mock.calls).toEqual([[[{ key: KEY, outcome: sent('req-1') }]]]);
  });

  it('carries an exact contact list through contact-list delivery, under its claim', async () => {
    const { delivery, published, runner } = setUp();
    const exact: PlannedAction = {
      template: planned.template,
      action: { kind: 'contact-list', mode: 'exact', name: 'vip', members: [] },
    };
    const running = runner.run(event, exact, source);
    await settle();
    expect(delivery.calls.map((c) => [c.kind, c.ticket.claim.key])).toEqual([
      ['contact-list', KEY],
    ]);
    const created: ActionOutcome = {
      status: 'created',
      listId: 'l-1',
      name: 'vip',
      memberCount: 0,
    };
    delivery.calls[0].answer(created);
    expect(await running).toBe('created');
    expect(published.map((p) => [p.outcome, p.storeHad])).toEqual([[created, 'done']]);
  });

  it('claims, delivers, records the outcome, and only then publishes it', async () => {
    const { delivery, metrics, published, runner, store } = setUp();
    const running = runner.run(event, planned, source);
    await settle();
    expect(delivery.calls).toHaveLength(1);
    const { ticket } = delivery.calls[0];
    expect(ticket).toMatchObject({ claim: { key: KEY }, ambiguous: false });
    expect(ticket.claim.holder.instance).toBe(ME);
    // While it is being delivered, the key is held: another handling would wait.
    expect((await store.claim(KEY, { instance: ME, handling: 'other' }, CLAIM_TTL_MS)).kind).toBe(
      'busy',
    );

    delivery.calls[0].answer(sent('req-1'));
    expect(await running).toBe('sent');
    expect(published).toEqual([{ template: 'welcome', outcome: sent('req-1'), storeHad: 'done' }]);
    expect(await store.claim(KEY, stranger('later'), CLAIM_TTL_MS)).toEqual({
      kind: 'done',
      outcome: sent('req-1'),
    });
    expect(await count(metrics.outcomes, { outcome: 'sent' })).toBe(1);
  });

  it('publishes the recorded outcome again for a done claim, as a duplicate, without sending', async () => {
    const { delivery, metrics, published, runner, store } = setUp();
    await store.complete([{ key: KEY, outcome: sent('req-earlier') }]);

    expect(await runner.run(event, planned, source)).toBe('duplicate');
    expect(delivery.calls).toHaveLength(0);
    expect(published.map((p) => p.outcome)).toEqual([sent('req-earlier')]);
    expect(await count(metrics.outcomes, { outcome: 'duplicate' })).toBe(1);
    expect(await count(metrics.outcomes, { outcome: 'sent' })).toBe(0);
  });

  it('waits for a busy claim, every 500 ms, and then publishes the other handling’s outcome', async () => {
    const { clock, delivery, published, runner } = setUp();
    const first = runner.run(event, planned, source);
    await settle();
    const second = runner.run(event, planned, source); // the same record, handled again
    const secondSeen = watch(second);
    await clock.advance(1_500);
    expect(delivery.calls).toHaveLength(1); // the second handling never sends alongside
    expect(secondSeen.settled).toBe(false);

    delivery.calls[0].answer(sent('req-1'));
    expect(await first).toBe('sent');
    await clock.advance(499); // its next look is 500 ms after the last one
    expect(secondSeen.settled).toBe(false);
    await clock.advance(1);
    expect(await second).toBe('duplicate');
    expect(delivery.calls).toHaveLength(1);
    expect(published.map((p) => p.outcome)).toEqual([sent('req-1'), sent('req-1')]);
  });

  it('sends a campaign through delivery, not the windows: no window order is built for it', async () => {
    const { delivery, runner } = setUp();
    const running = runner.run(event, planned, source);
    await settle();
    expect(delivery.calls[0].order).toBeUndefined();
    delivery.calls[0].answer(sent('req-1'));
    expect(await running).toBe('sent');
  });

  describe('an order stored in a contact-list window', () => {
    const inWindow: RecordedOutcome = { status: 'in-window', list: 'new-customers-20261121T1000Z' };
    const windowed: PlannedAction = {
      template: planned.template,
      action: {
        kind: 'contact-list',
        mode: 'window',
        listKey: 'new-customers',
        window: { start: new Date('2026-11-21T10:00Z'), end: new Date('2026-11-21T11:00Z') },
        members: [{ email: 'ada@example.com' }],
      },
    };

    it('records `in-window` and publishes nothing: the result comes with the list', async () => {
      const { delivery, published, runner, store } = setUp();
      const keyed = { ...source, key: Buffer.from('order-1'), headers: { traceparent: 'tp-1' } };
      const running = runner.run(event, windowed, keyed);
      await settle();
      // What the window keeps to publish the result later: the event, the key and the trace.
      expect(delivery.calls[0].order).toEqual({
        ref: KEY,
        eventId: 'evt-1',
        eventType: 'user.signed_up.v1',
        template: 'welcome',
        category: 'transactional',
        key: Buffer.from('order-1').toString('base64'),
        headers: { traceparent: 'tp-1' },
      });
      delivery.calls[0].answer(inWindow);
      expect(await running).toBe('in-window');
      expect(published).toEqual([]);
      expect(await store.claim(KEY, stranger('later'), CLAIM_TTL_MS)).toEqual({
        kind: 'done',
        outcome: inWindow,
      });
    });

    it('gives the claim back and rethrows when its member cannot be stored', () =>
      expectFailureReleasesClaim(windowed, 'window store down'));

    it('publishes nothing for a redelivered order whose claim says `in-window`', async () => {
      const { delivery, published, runner, store } = setUp();
      await store.complete([{ key: KEY, outcome: inWindow }]);
      expect(await runner.run(event, planned, source)).toBe('in-window');
      expect(delivery.calls).toHaveLength(0);
      expect(published).toEqual([]);
    });

    it('publishes the result again once the list is created (the claim says `created`)', async () => {
      const { published, runner, store } = setUp();
      const created: ActionOutcome = {
        status: 'created',
        listId: 'list-1',
        name: 'new-customers-20261121T1000Z',
        memberCount: 3,
      };
      await store.complete([{ key: KEY, outcome: created }]);
      expect(await runner.run(event, planned, source)).toBe('duplicate');
      expect(published.map((p) => p.outcome)).toEqual([created]);
    });
  });

  describe('taking over a claim whose holder vanished after marking its request as written', () => {
    /** A process claimed the key, marked the send as about to be written, and died. */
    async function vanishedWriter(store: MemoryIdempotencyStore): Promise<void> {
      const dead = stranger('dead');
      await store.claim(KEY, dead, CLAIM_TTL_MS);
      expect(await store.markSending([{ key: KEY, holder: dead }])).toEqual(new Set([KEY]));
    }

    it('sends again under policy resend, flagged ambiguous, and counts a possible duplicate', async () => {
      const { delivery, metrics, runner, store } = setUp('resend');
      await vanishedWriter(store);
      const running = runner.run(event, planned, source);
      await settle();
      expect(delivery.calls).toHaveLength(1);
      expect(delivery.calls[0].ticket.ambiguous).toBe(true);
      delivery.calls[0].answer({ ...sent('req-2'), ambiguous: true });

      expect(await running).toBe('sent');
      const takeover = { cause: 'takeover', resolution: 'resend' };
      expect(await count(metrics.ambiguousSends, takeover)).toBe(1);
      expect(await count(metrics.possibleDuplicates)).toBe(1);
    });

    it('fails it as AMBIGUOUS_SEND under policy fail, without sending', async () => {
      const { delivery, metrics, published, runner, store } = setUp('fail');
      await vanishedWriter(store);

      expect(await runner.run(event, planned, source)).toBe('failed');
      expect(delivery.calls).toHaveLength(0);
      expect(published).toHaveLength(1);
      expect(published[0].outcome).toMatchObject({
        status: 'failed',
        errorCode: 'AMBIGUOUS_SEND',
        ambiguous: true,
      });
      expect(published[0].storeHad).toBe('done'); // recorded: a redelivery will not send either
      const takeover = { cause: 'takeover', resolution: 'fail' };
      expect(await count(metrics.ambiguousSends, takeover)).toBe(1);
      expect(await count(metrics.possibleDuplicates)).toBe(0);
      expect(await count(metrics.outcomes, { outcome: 'failed' })).toBe(1);
    });
  });

  it('claims again when delivery says the claim was lost, and publishes the new holder’s outcome', async () => {
    const { clock, delivery, published, runner, store } = setUp();
    const running = runner.run(event, planned, source);
    await settle();
    // This instance was taken for dead (its heartbeat lapsed) and another took the claim over.
    await store.retire(ME);
    const taker = stranger('taker');
    await store.heartbeat(taker.instance, 3_600_000);
    expect((await store.claim(KEY, taker, CLAIM_TTL_MS)).kind).toBe('reclaimed');
    await store.heartbeat(ME, 3_600_000);
    delivery.calls[0].fail(new ClaimLostError(KEY));
    await clock.advance(500);
    expect(watch(running).settled).toBe(false); // busy: the taker is running it

    await store.complete([{ key: KEY, outcome: sent('req-taker') }]);
    await clock.advance(500);
    expect(await running).toBe('duplicate');
    expect(delivery.calls).toHaveLength(1);
    expect(published.map((p) => p.outcome)).toEqual([sent('req-taker')]);
  });

  it('gives the claim back and rethrows when delivery fails, publishing nothing', () =>
    expectFailureReleasesClaim(planned, 'bug in a batcher'));

  it('keeps its claim alive while a send takes many claim TTLs, and stops renewing after', async () => {
    const { clock, delivery, runner, store } = setUp();
    const running = runner.run(event, planned, source);
    await settle();
    await clock.advance(4 * CLAIM_TTL_MS);
    expect((await store.claim(KEY, stranger('rival'), CLAIM_TTL_MS)).kind).toBe('busy');

    delivery.calls[0].answer(sent('req-slow'));
    expect(await running).toBe('sent');
    expect(clock.pending).toBe(0);
  });

  it('renews every claim being sent with one timer, and holds each of them', async () => {
    const { clock, delivery, runner, store } = setUp();
    const later = { ...event, id: 'evt-2' };
    const first = runner.run(event, planned, source);
    const second = runner.run(later, planned, { ...source, offset: '43' });
    await settle();
    expect(delivery.calls).toHaveLength(2);
    expect(clock.pending).toBe(1); // one renewal timer, not one per record

    await clock.advance(4 * CLAIM_TTL_MS);
    for (const key of [KEY, 'evt-2:welcome']) {
      expect((await store.claim(key, stranger('rival'), CLAIM_TTL_MS)).kind).toBe('busy');
    }
    delivery.calls[0].answer(sent('req-1'));
    expect(await first).toBe('sent');
    expect(clock.pending).toBe(1); // the second is still being sent
    await clock.advance(4 * CLAIM_TTL_MS);
    expect((await store.claim('evt-2:welcome', stranger('rival'), CLAIM_TTL_MS)).kind).toBe('busy');
    delivery.calls[1].answer(sent('req-2'));
    expect(await second).toBe('sent');
    expect(clock.pending).toBe(0);
  });

  describe('when the outcome cannot be recorded or published', () => {
    it('publishes nothing and fails the action when its outcome cannot be recorded', async () => {
      const { delivery, published, runner, store } = setUp();
      jest.spyOn(store, 'complete').mockRejectedValue(new Error('READONLY'));
      const running = runner.run(event, planned, source);
      await settle();
      delivery.calls[0].answer(sent('req-1'));
      await expect(running).rejects.toThrow('READONLY');
      expect(published).toEqual([]);
    });

    it('fails the action when its result cannot be published; a redelivery publishes it', async () => {
      const { delivery, publisher, published, runner } = setUp();
      const publish = jest.spyOn(publisher, 'publishResult');
      publish.mockRejectedValueOnce(new Error('broker down'));
      const running = runner.run(event, planned, source);
      await settle();
      delivery.calls[0].answer(sent('req-1'));
      await expect(running).rejects.toThrow('broker down');
      expect(await runner.run(event, planned, source)).toBe('duplicate');
      expect(delivery.calls).toHaveLength(1);
      expect(published.map((p) => p.outcome)).toEqual([sent('req-1')]);
    });

    it('gives the claim back and fails the action when delivery throws at once (a bug)', async () => {
      const { clock, delivery, runner, store } = setUp();
      jest.spyOn(delivery, 'deliver').mockImplementation(() => {
        throw new Error('bug in a batcher');
      });
      await expect(runner.run(event, planned, source)).rejects.toThrow('bug in a batcher');
      expect(await store.claim(KEY, stranger('next'), CLAIM_TTL_MS)).toEqual({ kind: 'claimed' });
      expect(clock.pending).toBe(0); // no renewal left running
    });
  });
});
