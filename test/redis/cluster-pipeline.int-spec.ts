import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import calculateSlot from 'cluster-key-slot';
import { Cluster, Redis } from 'ioredis';
import type { EmailDispatchFailedV1 } from '../../src/contracts/email-dispatch-failed.v1';
import type { CampaignRequest } from '../../src/email-api/vendor.types';
import { order, signUp } from '../support/events';
import { freePort } from '../support/free-port';
import { uniqueName, waitFor } from '../support/kafka-helpers';
import { RedisClusterGroup } from '../support/redis-cluster';
import { PipelineFixture } from '../support/service-harness';
import { StoreCalls } from '../support/store-calls';

jest.setTimeout(300_000);

/** Recipients of the campaign request whose store calls are counted: a full request. */
const RECIPIENTS = 1_000;

/** The settings that make 1,000 sign-ups one campaign request: it goes when it is full. */
const ONE_FULL_REQUEST = { BATCH_MAX_RECIPIENTS: String(RECIPIENTS), BATCH_LINGER_MS: '5000' };

function suppression(id: string, address: string) {
  return {
    id,
    type: 'email.suppression.requested.v1',
    time: new Date().toISOString(),
    source: '/preferences',
    data: { action: 'add', address, reason: 'bounced', scope: 'all' },
  };
}

/** Every address the sandbox accepted a campaign for, as often as it did. */
function campaignAddresses(fixture: PipelineFixture): string[] {
  return fixture.sandbox.requests
    .filter((r) => r.status === 200 && r.path.endsWith('/email/campaign'))
    .flatMap((r) => (r.body as CampaignRequest).recipients.to.map((t) => t.email.toLowerCase()));
}

async function answered(fixture: PipelineFixture, topic: string, ids: string[], what: string) {
  await waitFor(
    () => (ids.every((id) => fixture.collector.answered(topic).has(id)) ? true : undefined),
    { timeoutMs: 180_000, what },
  );
}

/** The calls of one 1,000-recipient campaign request, counted from the service's sign-ups. */
async function countOneRequest(
  fixture: PipelineFixture,
  ports: number[],
  options: { password?: string; countWaits?: boolean },
): Promise<{ calls: StoreCalls; slots: number }> {
  const run = uniqueName('full-request');
  const events = Array.from({ length: RECIPIENTS }, (_, i) => signUp(i, run));
  const requestsBefore = fixture.sandbox.requests.length;
  const calls = await StoreCalls.start(ports, fixture.keyPrefix, options);
  try {
    await fixture.publish('TOPIC_USER_SIGNED_UP', events, (e) => e.data.userId);
    const ids = events.map((e) => e.id);
    await answered(fixture, fixture.topics.TOPIC_CAMPAIGN_SENT, ids, '1,000 sign-ups answered');
  } finally {
    calls.stop();
  }
  const requests = fixture.sandbox.requests.slice(requestsBefore);
  expect(requests.map((r) => (r.body as CampaignRequest).recipients.to.length)).toEqual([
    RECIPIENTS,
  ]);
  const keys = events.map((e) => `${fixture.keyPrefix}${e.id}:welcome`);
  return { calls, slots: new Set(keys.map((key) => calculateSlot(key))).size };
}

/**
 * The service on a Redis Cluster of three primaries and three replicas (real `redis-server`
 * processes on loopback), found from two of its nodes (`REDIS_CLUSTER_NODES`), its password read
 * from a file: sign-ups, an order through its contact-list window and a suppression command
 * each reach their result, every email goes once, and the keys spread over every primary. Then
 * what one full campaign request costs Redis there, call by call.
 */
describe('the service on a Redis Cluster of three primaries and three replicas', () => {
  const password = `p@ss:${randomUUID()}`;
  const secrets = mkdtempSync(join(tmpdir(), 'mailbridge-secrets-'));
  const fixture = new PipelineFixture();
  const run = uniqueName('cluster');
  const signUps = Array.from({ length: 60 }, (_, i) => signUp(i, run));
  const orders = Array.from({ length: 3 }, (_, i) => order(i, run));
  const bounced = signUp(100, run);
  let group: RedisClusterGroup;
  let admin: Cluster;

  beforeAll(async () => {
    group = await RedisClusterGroup.start({ password });
    admin = new Cluster([{ host: '127.0.0.1', port: group.nodes[0].port }], {
      redisOptions: { password },
    });
    writeFileSync(join(secrets, 'redis'), `${password}\n`);
    await fixture.start();
    await fixture.startService({
      REDIS_URL: 'redis://cluster-managed',
      // Two of the six: the cluster client learns the others from them.
      REDIS_CLUSTER_NODES: [group.addresses[0], group.addresses[4]].join(','),
      REDIS_PASSWORD_FILE: join(secrets, 'redis'),
      CONTACT_LIST_WINDOW_MS: '2000',
      ...ONE_FULL_REQUEST,
    });
  });

  afterAll(async () => {
    await fixture.stop();
    admin?.disconnect();
    group?.stop();
    rmSync(secrets, { recursive: true, force: true });
  });

  /** Keys under the fixture's prefix (its window keys carry it in their hash tag) per primary. */
  async function keysPerPrimary(): Promise<Map<number, number>> {
    const counts = new Map<number, number>();
    for (const port of await group.primaryPorts()) {
      const node = new Redis(port, '127.0.0.1', { password, lazyConnect: true });
      await node.connect();
      let count = 0;
      for (const match of [`${fixture.keyPrefix}*`, `{${fixture.keyPrefix}*`]) {
        for await (const keys of node.scanStream({ match, count: 1_000 })) {
          count += (keys as string[]).length;
        }
      }
      node.disconnect();
      counts.set(port, count);
    }
    return counts;
  }

  it('answers sign-ups, an order and a suppression, sends each email once, and uses every primary', async () => {
    await fixture.publish(
      'TOPIC_SUPPRESSION_REQUESTED',
      [suppression(`${run}-bounce`, bounced.data.email)],
      (e) => e.id,
    );
    // Commands and sign-ups travel on different topics: the entry is in before the sign-ups come.
    const list = `${fixture.keyPrefix}suppression`;
    await waitFor(async () => ((await admin.hlen(list)) > 0 ? true : undefined), {
      timeoutMs: 60_000,
      what: 'the suppression entry',
    });
    await fixture.publish('TOPIC_USER_SIGNED_UP', [bounced], (e) => e.data.userId);
    await fixture.publish('TOPIC_USER_SIGNED_UP', signUps, (e) => e.data.userId);
    await fixture.publish('TOPIC_ORDER_PLACED', orders, (o) => o.data.orderId);

    const t = fixture.topics;
    await answered(
      fixture,
      t.TOPIC_CAMPAIGN_SENT,
      [...signUps, ...orders].map((e) => e.id),
      'sent',
    );
    await answered(
      fixture,
      t.TOPIC_CONTACT_LIST_CREATED,
      orders.map((o) => o.id),
      'listed',
    );
    await waitFor(
      () =>
        fixture.collector
          .results<EmailDispatchFailedV1>(t.TOPIC_DISPATCH_FAILED)
          .some((r) => r.sourceeventid === bounced.id) || undefined,
      { what: 'the suppressed sign-up refused' },
    );

    const addresses = campaignAddresses(fixture);
    const expected = [
      ...signUps.map((e) => e.data.email),
      ...orders.map((o) => o.data.customer.email),
    ];
    expect(addresses.sort()).toEqual(expected.map((a) => a.toLowerCase()).sort());
    const refused = fixture.collector
      .results<EmailDispatchFailedV1>(t.TOPIC_DISPATCH_FAILED)
      .find((r) => r.sourceeventid === bounced.id);
    expect(refused?.data).toMatchObject({ reasonCode: 'SUPPRESSED', suppressedCount: 1 });
    const lists = fixture.sandbox.requests.filter((r) => r.path === '/v1/contacts');
    expect(lists.length).toBeGreaterThan(0);

    const perPrimary = await keysPerPrimary();
    expect(perPrimary.size).toBe(3);
    for (const count of perPrimary.values()) expect(count).toBeGreaterThan(0);
  });

  it('costs one suppression read, one budget call and one call per hash slot for a full campaign request', async () => {
    const primaries = await group.primaryPorts();
    const { calls, slots } = await countOneRequest(fixture, primaries, {
      password,
      countWaits: true,
    });
    const figures = primaries.map((port) => ({
      port,
      claim: calls.on(port, 'claim'),
      markSending: calls.on(port, 'markSending'),
      complete: calls.on(port, 'complete'),
      suppressionRead: calls.on(port, 'suppressionRead'),
      budget: calls.on(port, 'budget'),
      wait: calls.on(port, 'wait'),
    }));
    process.stderr.write(
      `[figures] one ${RECIPIENTS}-recipient campaign request on 3 primaries (${slots} slots): ` +
        `${JSON.stringify(figures)}\n`,
    );
    expect(calls.total('suppressionRead')).toBe(1);
    expect(calls.total('budget')).toBe(1);
    // One request's marks: one call per slot of its keys, no more.
    expect(calls.total('markSending')).toBe(slots);
    // Outcomes: per turn (at most 500 together) and slot, so at least one call per slot.
    expect(calls.total('complete')).toBeGreaterThanOrEqual(slots);
    expect(calls.total('complete')).toBeLessThanOrEqual(RECIPIENTS);
    // Claims go per fetched batch and slot: never more than one per event.
    expect(calls.total('claim')).toBeGreaterThanOrEqual(slots);
    expect(calls.total('claim')).toBeLessThanOrEqual(RECIPIENTS);
    // Each primary holds a third of the slots, and gets about a third of the calls.
    for (const figure of figures) expect(figure.markSending).toBeGreaterThan(slots / 4);
    // REDIS_WAIT_REPLICAS is 1 on a cluster unless set: the marks before the request is written,
    // and the outcomes before the results, wait for every primary's replica (a WAIT on each).
    for (const figure of figures) expect(figure.wait).toBeGreaterThanOrEqual(2);
  });
});

/** On a Redis of its own: MONITOR on the machine's shared one would count other runs too. */
describe('the same campaign request on one Redis', () => {
  const fixture = new PipelineFixture();
  let server: ChildProcess;
  let port: number;

  beforeAll(async () => {
    port = await freePort();
    server = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    await waitFor(
      async () => {
        const redis = new Redis(port, '127.0.0.1', {
          lazyConnect: true,
          retryStrategy: () => null,
        });
        const pong = await redis.connect().then(
          () => redis.ping(),
          () => undefined,
        );
        redis.disconnect();
        return pong;
      },
      { what: 'the private Redis' },
    );
    await fixture.start();
    await fixture.startService({ REDIS_URL: `redis://127.0.0.1:${port}`, ...ONE_FULL_REQUEST });
  });

  afterAll(async () => {
    await fixture.stop();
    server?.kill('SIGKILL');
  });

  it('costs one call for its marks, two for its outcomes, one suppression read and one budget call', async () => {
    const { calls } = await countOneRequest(fixture, [port], { countWaits: true });
    const figures = {
      claim: calls.total('claim'),
      markSending: calls.total('markSending'),
      complete: calls.total('complete'),
      suppressionRead: calls.total('suppressionRead'),
      budget: calls.total('budget'),
      wait: calls.total('wait'),
    };
    process.stderr.write(
      `[figures] one ${RECIPIENTS}-recipient campaign request on one Redis: ${JSON.stringify(figures)}\n`,
    );
    expect(figures).toMatchObject({ markSending: 1, suppressionRead: 1, budget: 1 });
    // Outcomes are recorded per action, gathered per turn into calls of at most 500.
    expect(figures.complete).toBeLessThanOrEqual(RECIPIENTS / 500);
    expect(figures.wait).toBe(0); // no replicas asked for (REDIS_WAIT_REPLICAS 0 on one Redis)
    // Claims go one call per fetched batch (at most 500 each).
    expect(figures.claim).toBeGreaterThanOrEqual(2);
    expect(figures.claim).toBeLessThanOrEqual(20);
  });
});
