import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CampaignRequest, ContactListRequest } from '../../src/email-api/vendor.types';
import { askRedis } from '../support/ask-redis';
import { order, signUp } from '../support/events';
import { freePort } from '../support/free-port';
import { groupLag, uniqueName, waitFor } from '../support/kafka-helpers';
import { RedisClusterGroup } from '../support/redis-cluster';
import { PipelineFixture } from '../support/service-harness';

jest.setTimeout(240_000);

const SCRIPT = join(__dirname, '../../scripts/redis/move-to-cluster.sh');
/** Short windows, so that one opened on the single Redis closes on the cluster within the test. */
const WINDOW_MS = 20_000;

/**
 * The move from one Redis to a Redis Cluster as docs/operations.md describes it: the service
 * runs on a single Redis (its own redis-server), handles sign-ups and orders, and is stopped
 * while the orders' contact-list window is still open; `scripts/redis/move-to-cluster.sh`
 * copies everything into the cluster; the service starts on the cluster with the group's
 * offsets reset to the start, so that every event is delivered again. Nothing may be sent
 * twice, and the window opened on the single Redis must close on the cluster with every order.
 * As a control, one sign-up's keys are left out of the copy: that sign-up alone is sent again.
 */
describe('moving a deployment from one Redis to a Redis Cluster', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mailbridge-single-redis-'));
  const password = `p-${randomUUID()}`;
  const fixture = new PipelineFixture();
  const run = uniqueName('move');
  const signUps = Array.from({ length: 30 }, (_, i) => signUp(i, run));
  let single: ChildProcess;
  let singlePort: number;
  let group: RedisClusterGroup;

  beforeAll(async () => {
    singlePort = await freePort();
    single = spawn(
      'redis-server',
      [
        ...['--port', String(singlePort), '--bind', '127.0.0.1', '--dir', dir],
        ...['--save', '', '--appendonly', 'no', '--requirepass', password],
      ],
      { stdio: 'ignore' },
    );
    await waitFor(() => askRedis(singlePort, password, 'PING').catch(() => undefined), {
      what: 'the single Redis to answer',
    });
    group = await RedisClusterGroup.start({ password });
    await fixture.start();
  });

  afterAll(async () => {
    await fixture.stop();
    group?.stop();
    single?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends nothing copied twice and closes the open window on the cluster with every order', async () => {
    // Orders placed at the start of the next window: it stays open through the move.
    const windowStart = Math.ceil(Date.now() / WINDOW_MS) * WINDOW_MS + 100;
    const orders = Array.from({ length: 8 }, (_, i) =>
      order(i, run, new Date(windowStart).toISOString()),
    );
    const settings = {
      CONTACT_LIST_WINDOW_MS: String(WINDOW_MS),
      CONTACT_LIST_NAME_PATTERN: `${run}-{window}`,
    };
    const app = await fixture.startService({
      ...settings,
      REDIS_URL: `redis://:${password}@127.0.0.1:${singlePort}`,
    });
    await fixture.publish('TOPIC_USER_SIGNED_UP', signUps, (e) => e.data.userId);
    await fixture.publish('TOPIC_ORDER_PLACED', orders, (e) => e.data.orderId);
    const sent = fixture.topics.TOPIC_CAMPAIGN_SENT;
    const allIds = [...signUps, ...orders].map((e) => e.id);
    await waitFor(
      () => (allIds.every((id) => fixture.collector.answered(sent).has(id)) ? true : undefined),
      { timeoutMs: 60_000, what: 'every welcome and order confirmation sent on the single Redis' },
    );
    const inputs = [fixture.topics.TOPIC_USER_SIGNED_UP, fixture.topics.TOPIC_ORDER_PLACED];
    const lag = async () =>
      (await Promise.all(inputs.map((t) => groupLag(fixture.kafka, fixture.groupId, t)))).reduce(
        (x, y) => x + y,
      );
    await waitFor(async () => ((await lag()) === 0 ? true : undefined), {
      timeoutMs: 30_000,
      what: 'every record committed on the single Redis',
    });

    // The move: every instance stopped (a drain: records in flight finish and commit), the
    // script, and the service on the cluster, started with the group's offsets back at 0.
    await fixture.stopService(app);
    expect(Date.now()).toBeLessThan(windowStart + WINDOW_MS); // the window is still open
    expect(listsCreated()).toEqual([]);
    // The control: one sign-up's outcome is not copied. It alone must be emailed again on the
    // cluster, which shows that the copy, not chance, keeps every other from a second email.
    const uncopied = signUps[0];
    const left = (await askRedis(
      singlePort,
      password,
      'KEYS',
      `${fixture.keyPrefix}${uncopied.id}:*`,
    )) as string[];
    expect(left).toHaveLength(1);
    await askRedis(singlePort, password, 'DEL', ...left);
    const moved = spawnSync(
      'bash',
      [SCRIPT, `127.0.0.1:${singlePort}`, group.addresses[0], fixture.keyPrefix],
      {
        encoding: 'utf8',
        timeout: 60_000,
        env: { ...process.env, REDIS_FROM_PASSWORD: password, REDIS_CLUSTER_PASSWORD: password },
      },
    );
    expect({ status: moved.status, stderr: moved.stderr }).toEqual({ status: 0, stderr: '' });
    expect(moved.stdout).toMatch(/[1-9]\d* contact-list window keys copied/);
    const admin = fixture.kafka.admin();
    await admin.connect();
    for (const topic of inputs) {
      await admin.resetOffsets({ groupId: fixture.groupId, topic, earliest: true });
    }
    await admin.disconnect();
    // Every event is to be delivered again.
    expect(await lag()).toBeGreaterThanOrEqual(signUps.length + orders.length);

    const resultsBefore = fixture.collector.count(sent);
    // Stopped with the fixture, at the end.
    await fixture.startService({
      ...settings,
      REDIS_URL: `redis://:${password}@cluster-managed`,
      REDIS_CLUSTER_NODES: group.addresses.join(','),
    });
    // Every event delivered again is answered again, from its outcome copied into the cluster.
    await waitFor(async () => ((await lag()) === 0 ? true : undefined), {
      timeoutMs: 60_000,
      what: 'every redelivered record committed on the cluster',
    });
    await waitFor(() => (listsCreated().length > 0 ? true : undefined), {
      timeoutMs: WINDOW_MS + 60_000,
      what: 'the window opened on the single Redis to close on the cluster',
    });
    await waitFor(
      () =>
        orders.every((o) =>
          fixture.collector.answered(fixture.topics.TOPIC_CONTACT_LIST_CREATED).has(o.id),
        )
          ? true
          : undefined,
      { timeoutMs: 30_000, what: "every order's contact-list result" },
    );

    const emails = accepted<CampaignRequest>(true).flatMap((b) =>
      b.recipients.to.map((t) => t.email),
    );
    const expected = [
      ...signUps.map((e) => e.data.email),
      ...orders.map((o) => o.data.customer.email),
      uncopied.data.email,
    ];
    expect(emails.sort()).toEqual(expected.sort());
    expect(listsCreated()).toHaveLength(1);
    const members = (listsCreated()[0].members ?? []).map((m) => m.email);
    expect(members.sort()).toEqual(orders.map((o) => o.data.customer.email).sort());
    expect(fixture.collector.count(sent)).toBeGreaterThanOrEqual(resultsBefore);
    expect(fixture.collector.count(fixture.topics.TOPIC_DISPATCH_FAILED)).toBe(0);
  });

  /** Bodies of the campaign requests (or the list creations) the vendor accepted. */
  function accepted<T>(campaigns: boolean): T[] {
    return fixture.sandbox.requests
      .filter((r) => r.status >= 200 && r.status < 300)
      .filter((r) => r.path.split('?')[0].endsWith('/email/campaign') === campaigns)
      .map((r) => r.body as T);
  }

  function listsCreated(): ContactListRequest[] {
    return accepted<ContactListRequest>(false);
  }
});
