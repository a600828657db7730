import { Redis } from 'ioredis';
import type { EmailCampaignSentV1 } from '../../src/contracts/email-campaign-sent.v1';
import type { EmailDispatchFailedV1 } from '../../src/contracts/email-dispatch-failed.v1';
import { order } from '../support/events';
import { groupLag, uniqueName, waitFor } from '../support/kafka-helpers';
import { Replicas } from '../support/replicas';
import { PipelineFixture } from '../support/service-harness';

jest.setTimeout(300_000);

const WINDOW_MS = 20_000;

/**
 * The replicas that could hold a window's list are killed (-9) while the vendor holds the request
 * creating it: the list is created once (by that request), a new replica takes the list over
 * from `sending`, and under AMBIGUOUS_SEND_POLICY=fail answers every order without a second
 * creation.
 */
describe('a window list whose creator dies with the request in the vendor’s hands', () => {
  const fixture = new PipelineFixture();
  const run = uniqueName('takeover');
  let replicas: Replicas;
  const redis = new Redis('redis://127.0.0.1:6379');

  beforeAll(async () => {
    await fixture.start();
    replicas = new Replicas(fixture, {
      CONTACT_LIST_WINDOW_MS: String(WINDOW_MS),
      BATCH_LINGER_MS: '1000',
      KAFKA_SESSION_TIMEOUT_MS: '10000',
      IDEMPOTENCY_INSTANCE_TTL_MS: '3000',
      AMBIGUOUS_SEND_POLICY: 'fail',
      VENDOR_HEADERS_TIMEOUT_MS: '60000',
    });
    await replicas.start(2);
  });

  afterAll(async () => {
    await replicas?.stopAll();
    await fixture.stop();
    await redis.quit();
  });

  it('creates the list once and answers every order', async () => {
    // Every order in one window that closes well after they are all stored: the present one
    // when it began less than 5 s ago, else the next (within the default clock-skew tolerance).
    const current = Math.floor(Date.now() / WINDOW_MS) * WINDOW_MS;
    const start = Date.now() - current < 5_000 ? current : current + WINDOW_MS;
    const orders = Array.from({ length: 10 }, (_, i) =>
      order(i, run, new Date(start + 1_000).toISOString()),
    );
    const name = `new-customers-${new Date(start).toISOString().slice(0, 19).replace(/[-:]/g, '')}Z`;
    await fixture.publish('TOPIC_ORDER_PLACED', orders, (o) => o.data.orderId);
    await waitFor(
      () =>
        fixture.collector
          .results<EmailCampaignSentV1>(fixture.topics.TOPIC_CAMPAIGN_SENT)
          .filter((r) => r.sourceeventid.startsWith(run)).length >= orders.length || undefined,
      { what: 'the order confirmations', timeoutMs: 120_000 },
    );
    await waitFor(
      async () =>
        (await groupLag(fixture.kafka, fixture.groupId, fixture.topics.TOPIC_ORDER_PLACED)) === 0 ||
        undefined,
      { what: 'every order stored and committed' },
    );
    // The vendor now holds every request a long while; the list's request is written…
    fixture.sandbox.setFaults({ latencyMs: 20_000 });
    const listKey = `${fixture.keyPrefix}win:l:${name}`;
    await waitFor(async () => (await redis.hget(listKey, 'state')) === 'sending' || undefined, {
      what: `the list ${name} being sent`,
      timeoutMs: WINDOW_MS + 60_000,
      intervalMs: 50,
    });
    // The mark is set just before the request is written: kill only once the vendor holds it,
    // or the kill can fall in between and no request is ever made.
    const held = () => Object.keys(fixture.sandbox.stats.held).find((p) => p.endsWith('/contacts'));
    await waitFor(held, {
      what: 'the vendor holding the list request',
      timeoutMs: 10_000,
      intervalMs: 20,
    });
    // …and whoever wrote it dies before the answer comes.
    await replicas.kill9('r1');
    await replicas.kill9('r2');
    fixture.sandbox.setFaults({});
    await replicas.startOne('r3');

    const failures = await waitFor(
      () => {
        const r = fixture.collector
          .results<EmailDispatchFailedV1>(fixture.topics.TOPIC_DISPATCH_FAILED)
          .filter((x) => x.sourceeventid.startsWith(run));
        return r.length >= orders.length ? r : undefined;
      },
      { what: 'a result for every order', timeoutMs: 120_000 },
    );
    expect(new Set(failures.map((f) => f.sourceeventid)).size).toBe(orders.length);
    expect(failures.every((f) => f.data.errorCode === 'AMBIGUOUS_SEND')).toBe(true);
    // The held request reaches the sandbox once its latency is over: the one creation.
    const creations = await waitFor(
      () => {
        const lists = fixture.sandbox.requests.filter((r) => r.path.endsWith('/contacts'));
        return lists.length > 0 ? lists : undefined;
      },
      { what: 'the held request answered', timeoutMs: 60_000 },
    );
    expect(creations).toHaveLength(1);
    expect(await redis.hget(listKey, 'state')).toBe('published');
  });
});
