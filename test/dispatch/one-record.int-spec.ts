import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { loadConfig } from '../../src/config/config.loader';
import type { ActionOutcome } from '../../src/contracts/action-outcome';
import type { InboundEvent } from '../../src/contracts/inbound-contracts';
import { CampaignBatcher } from '../../src/delivery/campaign.batcher';
import { CampaignDelivery } from '../../src/delivery/campaign.delivery';
import type { ContactListDelivery } from '../../src/delivery/contact-list.delivery';
import { VendorTrouble } from '../../src/delivery/vendor-trouble';
import { VendorGate } from '../../src/delivery/vendor.gate';
import { ActionRunner } from '../../src/dispatch/action.runner';
import { VendorClient } from '../../src/email-api/vendor.client';
import { InstanceLiveness } from '../../src/idempotency/instance-liveness';
import { RedisIdempotencyStore } from '../../src/idempotency/redis-idempotency.store';
import { MetricsService } from '../../src/metrics/metrics.service';
import type { ResultPublisher } from '../../src/outbound/result.publisher';
import { SandboxServer } from '../../src/sandbox/sandbox.server';
import type { Planner } from '../../src/templates/planner';
import type { WindowPlacement } from '../../src/windows/window.placement';
import { anyRecord, signUp } from '../support/events';
import { sandboxVendorConfig, SANDBOX_KEYS } from '../support/sandbox-vendor';
import { serviceEnv, uniqueTopics } from '../support/service-harness';

const welcome: Planner = {
  name: 'welcome',
  eventType: 'user.signed_up.v1',
  category: 'transactional',
  plan: (event) => ({
    kind: 'campaign',
    batchKey: 'welcome',
    content: {
      subject: 'Hello',
      body: '<p>Hello</p>',
      sender: { from: { name: 'Shop', email: 'hello@shop.example' } },
    },
    recipients: [{ email: `${event.id}@example.com`, attributes: {} }],
  }),
};

/**
 * Recording an outcome has one owner: the runner records each action's outcome once, and what
 * it publishes is exactly what it recorded, ambiguity mark included. Played on the real Redis and
 * the real batcher and vendor client, against a sandbox that loses the answer to the first
 * request (the connection reset after the body was read), so that the client sends it again and
 * every outcome of the request must carry the mark.
 */
describe('one record per outcome, published as recorded', () => {
  const prefix = `mailbridge-test:${randomUUID()}:`;
  const store = new RedisIdempotencyStore('redis://127.0.0.1:6379', 3_600, prefix);
  let sandbox: SandboxServer;
  let client: VendorClient;

  beforeAll(() => store.connect());
  afterAll(() => store.close());

  beforeEach(async () => {
    sandbox = new SandboxServer({ ...SANDBOX_KEYS, faults: { resetShare: 1 } });
    const url = await sandbox.listen(0);
    const quiet = { log: () => undefined, warn: () => undefined };
    client = new VendorClient(sandboxVendorConfig(url, { VENDOR_RETRY_MAX_ATTEMPTS: '3' }), {
      logger: quiet,
      // The first answer was lost; the vendor answers from the retry on.
      sleep: () => {
        sandbox.setFaults({});
        return Promise.resolve();
      },
    });
  });

  afterEach(async () => {
    await client.close();
    await sandbox.close();
  });

  it('records each action of a request once, and publishes that very outcome', async () => {
    const config = loadConfig(serviceEnv('http://127.0.0.1:1', uniqueTopics(), 'g'));
    const instance = new InstanceLiveness(config, store);
    instance.onModuleInit();
    const metrics = new MetricsService();
    const batcher = new CampaignBatcher(
      client,
      { maxRecipients: 3, maxBytes: 1_000_000, lingerMs: 10_000 },
      { ledger: store },
    );
    const trouble = new VendorTrouble(config, new VendorGate(), metrics);
    const published: Array<{ eventId: string; outcome: ActionOutcome }> = [];
    const publisher = {
      publishResult: (event: InboundEvent, _template: string, outcome: ActionOutcome) => {
        published.push({ eventId: event.id, outcome });
        return Promise.resolve();
      },
    } as unknown as ResultPublisher;
    const complete = jest.spyOn(store, 'complete');
    const runner = new ActionRunner(
      config,
      store,
      new CampaignDelivery(batcher, trouble),
      {} as ContactListDelivery,
      {} as WindowPlacement,
      publisher,
      metrics,
      instance,
    );
    try {
      const events = [1, 2, 3].map((n) => signUp(n) as unknown as InboundEvent);
      const statuses = await Promise.all(
        events.map((event) =>
          runner.run(event, { template: welcome, action: welcome.plan(event) }, anyRecord),
        ),
      );
      expect(statuses).toEqual(['sent', 'sent', 'sent']);
      // One request, written twice: the first answer was lost.
      expect(sandbox.requests.filter((r) => r.path.endsWith('/email/campaign'))).toHaveLength(2);

      const keys = complete.mock.calls.flatMap(([outcomes]) => outcomes.map((o) => o.key));
      expect([...keys].sort()).toEqual(events.map((e) => `${e.id}:welcome`).sort());
      const stranger = { instance: 'observer', handling: 'o' };
      for (const event of events) {
        const stored = await store.claim(`${event.id}:welcome`, stranger, 1_000);
        const sent = published.find((p) => p.eventId === event.id)?.outcome;
        expect(stored).toEqual({ kind: 'done', outcome: sent });
        expect(sent).toMatchObject({ status: 'sent', ambiguous: true, recipientCount: 1 });
      }
    } finally {
      complete.mockRestore();
      await instance.onApplicationShutdown();
    }
  });
});
