import { randomUUID } from 'node:crypto';
import { loadConfig } from '../../src/config/config.loader';
import type { EmailDispatchFailedV1 } from '../../src/contracts/email-dispatch-failed.v1';
import type { InboundEvent } from '../../src/contracts/inbound-contracts';
import { ActionRunner, type PlannedAction } from '../../src/dispatch/action.runner';
import type { ActionOutcome } from '../../src/contracts/action-outcome';
import { InstanceLiveness } from '../../src/idempotency/instance-liveness';
import { RedisIdempotencyStore } from '../../src/idempotency/redis-idempotency.store';
import type { ActionTicket } from '../../src/delivery/action-ticket';
import type { CampaignDelivery } from '../../src/delivery/campaign.delivery';
import type { ContactListDelivery } from '../../src/delivery/contact-list.delivery';
import { MetricsService } from '../../src/metrics/metrics.service';
import { resultFor } from '../../src/outbound/result.factory';
import type { ResultPublisher, ResultToPublish } from '../../src/outbound/result.publisher';
import type { Planner, TemplateAction } from '../../src/templates/planner';
import { anyRecord, signUp } from '../support/events';
import { waitFor } from '../support/kafka-helpers';
import { serviceEnv, uniqueTopics } from '../support/service-harness';
import type { WindowPlacement } from '../../src/windows/window.placement';

/** A vendor whose sends stay in flight until the test lets them finish. */
class HeldVendor {
  readonly calls: Array<{ action: TemplateAction; ticket: ActionTicket }> = [];
  private release: () => void = () => undefined;
  private readonly held = new Promise<void>((resolve) => (this.release = resolve));

  async deliver(action: TemplateAction, ticket: ActionTicket): Promise<ActionOutcome> {
    this.calls.push({ action, ticket });
    await this.held;
    return {
      status: 'sent',
      requestIds: [`req-${this.calls.length}`],
      message: 'queued',
      recipientCount: 1,
      batchRecipientCount: 1,
    };
  }

  finish(): void {
    this.release();
  }
}

const welcome: Planner = {
  name: 'welcome',
  eventType: 'user.signed_up.v1',
  category: 'transactional',
  plan: (event) => ({
    kind: 'campaign',
    batchKey: 'welcome',
    content: { subject: 'Hi', body: 'Hi' },
    recipients: [{ email: `${event.id}@example.com` }],
  }),
};

/** The welcome template with the action it plans for `event`, as the dispatch service runs it. */
function welcomeFor(event: InboundEvent): PlannedAction {
  return { template: welcome, action: welcome.plan(event) };
}

/** A result published again is the same event (same id and data), stamped with a new time. */
function withoutTime(result: unknown): unknown {
  return { ...(result as object), time: undefined };
}

describe(`${ActionRunner.name} on the real Redis: redelivery and takeover`, () => {
  const store = new RedisIdempotencyStore(
    'redis://127.0.0.1:6379',
    60,
    `mailbridge-test:${randomUUID()}:`,
  );
  const instances: InstanceLiveness[] = [];
  let published: unknown[] = [];
  const publishResult = (event: InboundEvent, template: string, outcome: ActionOutcome) => {
    published.push(resultFor(event, template, outcome, new Date(), 'mailbridge'));
    return Promise.resolve();
  };
  const publisher = {
    publishResult,
    publishResults: async (results: ResultToPublish[]) => {
      for (const r of results) await publishResult(r.event as InboundEvent, r.template, r.outcome);
    },
  } as unknown as ResultPublisher;

  /** One runner is one process: its own instance identity, heartbeat and metrics. */
  function startRunner(vendor: HeldVendor, policy: 'resend' | 'fail' = 'resend') {
    const config = loadConfig(
      serviceEnv('http://127.0.0.1:1', uniqueTopics(), 'g', { AMBIGUOUS_SEND_POLICY: policy }),
    );
    const instance = new InstanceLiveness(config, store);
    instance.onModuleInit();
    instances.push(instance);
    const metrics = new MetricsService();
    const runner = new ActionRunner(
      config,
      store,
      vendor as unknown as CampaignDelivery,
      vendor as unknown as ContactListDelivery,
      // Campaigns only: no action here has a contact-list window.
      { place: () => Promise.reject(new Error('no windows here')) } as unknown as WindowPlacement,
      publisher,
      metrics,
      instance,
    );
    return { runner, metrics, instance };
  }

  beforeAll(() => store.connect());
  beforeEach(() => (published = []));
  afterAll(async () => {
    for (const instance of instances) await instance.onApplicationShutdown();
    await store.close();
  });

  it('reaches the vendor once when the same process handles a record again while the first handling is in flight', async () => {
    const vendor = new HeldVendor();
    // A consumer restart or a partition given back to this member hands the same record to
    // the same process again.
    const { runner } = startRunner(vendor);
    const event = signUp(1) as unknown as InboundEvent;
    try {
      const first = runner.run(event, welcomeFor(event), anyRecord);
      await waitFor(() => (vendor.calls.length === 1 ? true : undefined), { what: 'first send' });
      const second = runner.run(event, welcomeFor(event), anyRecord);
      // Give the second handling every chance to reach the vendor before the first finishes.
      await expect(
        waitFor(() => (vendor.calls.length > 1 ? true : undefined), { timeoutMs: 1_500 }),
      ).rejects.toThrow(/timed out/);
      vendor.finish();

      expect(await Promise.all([first, second])).toEqual(['sent', 'duplicate']);
      expect(vendor.calls).toHaveLength(1);
      expect(published).toHaveLength(2);
      expect(withoutTime(published[1])).toEqual(withoutTime(published[0]));
    } finally {
      vendor.finish();
    }
  });

  /** A process that claimed the event, marked its request as being written, and died. */
  async function diedMidSend(event: InboundEvent): Promise<void> {
    const dead = { instance: randomUUID(), handling: randomUUID() };
    const key = `${event.id}:${welcome.name}`;
    await store.heartbeat(dead.instance, 60_000);
    expect(await store.claim(key, dead, 120_000)).toEqual({ kind: 'claimed' });
    await store.markSending([{ key, holder: dead }]);
    await store.retire(dead.instance); // what a lapsed heartbeat amounts to
  }

  it("takes over a dead process's send at once and, resending, marks it ambiguous and counts it", async () => {
    const vendor = new HeldVendor();
    vendor.finish();
    const { runner, metrics } = startRunner(vendor, 'resend');
    const event = signUp(2) as unknown as InboundEvent;
    await diedMidSend(event);

    expect(await runner.run(event, welcomeFor(event), anyRecord)).toBe('sent');
    expect(vendor.calls.map((c) => c.ticket.ambiguous)).toEqual([true]);
    expect((await metrics.ambiguousSends.get()).values).toEqual([
      { value: 1, labels: { cause: 'takeover', resolution: 'resend' } },
    ]);
    expect((await metrics.possibleDuplicates.get()).values[0].value).toBe(1);
  });

  it("fails a dead process's send as ambiguous without sending it again when the policy is at-most-once", async () => {
    const vendor = new HeldVendor();
    vendor.finish();
    const { runner, metrics } = startRunner(vendor, 'fail');
    const event = signUp(3) as unknown as InboundEvent;
    await diedMidSend(event);

    expect(await runner.run(event, welcomeFor(event), anyRecord)).toBe('failed');
    expect(vendor.calls).toHaveLength(0);
    const [result] = published as EmailDispatchFailedV1[];
    expect(result.type).toBe('email.dispatch.failed.v1');
    expect(result.data).toMatchObject({ errorCode: 'AMBIGUOUS_SEND', ambiguous: true });
    expect((await metrics.ambiguousSends.get()).values).toEqual([
      { value: 1, labels: { cause: 'takeover', resolution: 'fail' } },
    ]);
    // A redelivery answers with the same failure: the decision is recorded.
    const again = await startRunner(vendor, 'fail').runner.run(event, welcomeFor(event), anyRecord);
    expect(again).toBe('duplicate');
    expect(withoutTime(published[1])).toEqual(withoutTime(result));
  });

  it('sends normally, without calling it ambiguous, when the dead process had not begun to write', async () => {
    const vendor = new HeldVendor();
    vendor.finish();
    const { runner, metrics } = startRunner(vendor, 'fail');
    const event = signUp(4) as unknown as InboundEvent;
    const dead = { instance: randomUUID(), handling: randomUUID() };
    await store.heartbeat(dead.instance, 60_000);
    await store.claim(`${event.id}:${welcome.name}`, dead, 120_000);
    await store.retire(dead.instance);

    expect(await runner.run(event, welcomeFor(event), anyRecord)).toBe('sent');
    expect(vendor.calls.map((c) => c.ticket.ambiguous)).toEqual([false]);
    expect((await metrics.ambiguousSends.get()).values).toEqual([]);
  });
});
