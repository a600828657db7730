import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import type { CampaignRequest } from '../../src/email-api/vendor.types';
import { RedisConnection } from '../../src/redis/redis.connection';
import { signUp } from '../support/events';
import { uniqueName, waitFor } from '../support/kafka-helpers';
import { RedisSentinelGroup } from '../support/redis-sentinel';
import { PipelineFixture } from '../support/service-harness';

jest.setTimeout(120_000);

/**
 * The one Redis connection, given Sentinels instead of an address (`REDIS_SENTINELS`), on real
 * processes: a primary, two replicas and three Sentinels. It finds the primary through them, and
 * when the primary is killed it follows the promotion; commands asked for in between wait and
 * are answered by the new primary.
 */
describe('Redis through Sentinel', () => {
  const options = { password: `p@ss:${randomUUID()}`, sentinelPassword: `s-${randomUUID()}` };
  let group: RedisSentinelGroup;
  let connection: RedisConnection;

  beforeAll(async () => {
    group = await RedisSentinelGroup.start(options);
    connection = new RedisConnection(
      {
        // The host is not used: the Sentinels say where the primary is.
        url: `redis://:${encodeURIComponent(options.password)}@sentinel-managed/0`,
        sentinels: group.sentinelAddresses,
        name: RedisSentinelGroup.NAME,
        sentinelPassword: options.sentinelPassword,
      },
      `mailbridge-test:${randomUUID()}:`,
    );
    await connection.connect();
  });

  afterAll(async () => {
    await connection?.close();
    group?.stop();
  });

  const portOf = async (client: Redis | RedisConnection['client']) =>
    Number(/tcp_port:(\d+)/.exec(String(await client.info('server')))?.[1]);

  it('finds the primary, follows its promotion after a kill -9, and answers what waited', async () => {
    const client = connection.client as Redis;
    const first = await group.primaryPort();
    expect(await portOf(client)).toBe(first);
    await client.set('before', '1');

    const killedAt = Date.now();
    await group.kill(first);
    // Asked while the primary is gone: it waits for the new one (nothing is lost or refused).
    const during = client.incr('during');
    await waitFor(() => (connection.connected ? undefined : true), {
      timeoutMs: 30_000,
      what: 'the connection to report the primary lost',
    });
    expect(await during).toBe(1);
    const answeredAfter = Date.now() - killedAt;

    const promoted = await group.primaryPort();
    expect(promoted).not.toBe(first);
    expect(await portOf(client)).toBe(promoted);
    expect(String(await client.call('ROLE')).startsWith('master')).toBe(true);
    await waitFor(() => (connection.connected ? true : undefined), {
      timeoutMs: 30_000,
      what: 'the connection to report Redis reachable again',
    });
    process.stderr.write(
      `[figures] sentinel failover: primary ${first} killed, ${promoted} promoted; ` +
        `a command asked in between answered after ${answeredAfter} ms\n`,
    );
  });

  it('keeps the passwords out of its errors', () => {
    const message = `connect to redis://:${options.password}@x failed; sentinel ${options.sentinelPassword}`;
    expect(connection.redact(message)).not.toContain(options.password);
    expect(connection.redact(message)).not.toContain(options.sentinelPassword);
  });
});

describe('the service on Redis through Sentinel (REDIS_SENTINELS, passwords from files)', () => {
  const options = { password: `p@ss:${randomUUID()}`, sentinelPassword: `s-${randomUUID()}` };
  const secrets = mkdtempSync(join(tmpdir(), 'mailbridge-secrets-'));
  const fixture = new PipelineFixture();
  const run = uniqueName('sentinel');
  const events = Array.from({ length: 40 }, (_, i) => signUp(i, run));
  let group: RedisSentinelGroup;

  beforeAll(async () => {
    group = await RedisSentinelGroup.start(options);
    writeFileSync(join(secrets, 'redis'), `${options.password}\n`);
    writeFileSync(join(secrets, 'sentinel'), `${options.sentinelPassword}\n`);
    await fixture.start();
  });

  afterAll(async () => {
    await fixture.stop();
    group?.stop();
    rmSync(secrets, { recursive: true, force: true });
  });

  it('sends each email once before and after the primary is killed and a replica promoted', async () => {
    await fixture.startService({
      REDIS_URL: 'redis://sentinel-managed',
      REDIS_SENTINELS: group.sentinelAddresses.map((s) => `${s.host}:${s.port}`).join(','),
      REDIS_SENTINEL_NAME: RedisSentinelGroup.NAME,
      REDIS_PASSWORD_FILE: join(secrets, 'redis'),
      REDIS_SENTINEL_PASSWORD_FILE: join(secrets, 'sentinel'),
      BATCH_MAX_RECIPIENTS: '5',
    });
    const sent = fixture.topics.TOPIC_CAMPAIGN_SENT;
    const answered = (n: number, what: string) =>
      waitFor(() => (fixture.collector.answered(sent).size >= n ? true : undefined), {
        timeoutMs: 60_000,
        what,
      });
    await fixture.publish('TOPIC_USER_SIGNED_UP', events.slice(0, 20), (e) => e.data.userId);
    await answered(20, 'the first 20 sign-ups answered');

    await group.kill(await group.primaryPort());
    await fixture.publish('TOPIC_USER_SIGNED_UP', events.slice(20), (e) => e.data.userId);
    await answered(40, 'the other 20 answered after the failover');

    const emails = fixture.sandbox.requests
      .filter((r) => r.status === 200)
      .flatMap((r) => (r.body as CampaignRequest).recipients.to.map((t) => t.email));
    expect(emails.sort()).toEqual(events.map((e) => e.data.email).sort());
  });
});

/**
 * The one double a failover could cause: a `sending` mark or an outcome the primary acknowledged
 * and no replica had yet. Both replicas are paused (SIGSTOP) and the primary's links to them
 * closed, so that nothing written from then on reaches them; a sign-up comes in; the primary is
 * killed and the replicas resumed, one promoted without whatever they missed; the producer then
 * publishes the same sign-up again.
 */
describe.each([
  { shortfall: 'wait', emails: 1 },
  { shortfall: 'proceed', emails: 2 },
] as const)(
  'a failover while no replica has the last writes (REDIS_REPLICA_SHORTFALL=$shortfall)',
  ({ shortfall, emails }) => {
    const options = { password: `p-${randomUUID()}`, sentinelPassword: `s-${randomUUID()}` };
    const fixture = new PipelineFixture();
    const run = uniqueName(`failover-${shortfall}`);
    const warmUp = Array.from({ length: 5 }, (_, i) => signUp(i, run));
    const event = signUp(100, run);
    let group: RedisSentinelGroup;

    beforeAll(async () => {
      group = await RedisSentinelGroup.start(options);
      await fixture.start();
    });

    afterAll(async () => {
      await fixture.stop();
      group?.stop();
    });

    const sentTo = (email: string) =>
      fixture.sandbox.requests
        .filter((r) => r.status === 200)
        .flatMap((r) => (r.body as CampaignRequest).recipients.to.map((t) => t.email))
        .filter((e) => e === email).length;

    it(`sends the email ${emails === 1 ? 'once' : 'twice, the risk that setting accepts'}`, async () => {
      const app = await fixture.startService({
        REDIS_URL: `redis://:${options.password}@sentinel-managed`,
        REDIS_SENTINELS: group.sentinelAddresses.map((s) => `${s.host}:${s.port}`).join(','),
        REDIS_SENTINEL_NAME: RedisSentinelGroup.NAME,
        REDIS_SENTINEL_PASSWORD: options.sentinelPassword,
        REDIS_WAIT_TIMEOUT_MS: '200',
        REDIS_REPLICA_SHORTFALL: shortfall,
      });
      const ready = async () => {
        const res = await fetch(`${await app.getUrl()}/health/ready`);
        return { status: res.status, body: await res.text() };
      };
      const sent = fixture.topics.TOPIC_CAMPAIGN_SENT;
      const answered = (id: string) => fixture.collector.answered(sent).has(id);
      await fixture.publish('TOPIC_USER_SIGNED_UP', warmUp, (e) => e.data.userId);
      await waitFor(() => (warmUp.every((e) => answered(e.id)) ? true : undefined), {
        timeoutMs: 60_000,
        what: 'the warm-up sign-ups answered',
      });

      const primary = await group.primaryPort();
      const replicas = group.nodes.map((n) => n.port).filter((p) => p !== primary);
      for (const port of replicas) group.pause(port);
      // Paused alone, a replica still reads what the kernel buffered on its open link once it is
      // resumed, and may be promoted with the write after all.
      expect(await group.cutReplicas(primary)).toBe(replicas.length);
      await fixture.publish('TOPIC_USER_SIGNED_UP', [event], (e) => e.data.userId);
      // With `wait`, marked on the primary alone: not sent, and readiness says why. With
      // `proceed`, sent anyway.
      await waitFor(
        async () =>
          shortfall === 'wait'
            ? (await ready()).body.includes('Redis replicas acknowledged') || undefined
            : answered(event.id) || undefined,
        { timeoutMs: 30_000, what: `the sign-up held back or sent (${shortfall})` },
      );
      const metrics = await (await fetch(`${await app.getUrl()}/metrics`)).text();
      const withoutReplicas = Number(
        /^mailbridge_redis_writes_without_replicas_total (\S+)$/m.exec(metrics)?.[1],
      );
      const whileShort = {
        ready: (await ready()).status,
        sent: sentTo(event.data.email),
        countedWithoutReplicas: withoutReplicas > 0,
      };
      expect(whileShort).toEqual(
        shortfall === 'wait'
          ? { ready: 503, sent: 0, countedWithoutReplicas: false }
          : { ready: 200, sent: 1, countedWithoutReplicas: true },
      );

      await group.kill(primary);
      for (const port of replicas) group.resume(port);
      await waitFor(
        async () =>
          (await group.primaryPort().catch(() => primary)) !== primary ? true : undefined,
        { timeoutMs: 60_000, what: 'a replica promoted' },
      );
      await waitFor(() => (answered(event.id) ? true : undefined), {
        timeoutMs: 60_000,
        what: 'the sign-up answered after the failover',
      });
      // The producer publishes it again; the new primary is all the service can ask.
      const before = fixture.collector.count(sent);
      await fixture.publish('TOPIC_USER_SIGNED_UP', [event], (e) => e.data.userId);
      await waitFor(() => (fixture.collector.count(sent) > before ? true : undefined), {
        timeoutMs: 60_000,
        what: 'the repeated sign-up answered',
      });

      expect(sentTo(event.data.email)).toBe(emails);
      for (const e of warmUp) expect(sentTo(e.data.email)).toBe(1);
    });
  },
);
