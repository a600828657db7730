import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Kafka } from 'kafkajs';
import { SandboxServer } from '../src/sandbox/sandbox.server';
import type { CampaignRequest } from '../src/email-api/vendor.types';
import { signUp } from './support/events';
import { freePort } from './support/free-port';
import { PrivateBroker } from './support/private-broker';
import { startService, terminate, type Service } from './support/service-process';
import {
  createTopics,
  produce,
  testBrokers,
  testKafka,
  TopicCollector,
  uniqueName,
  waitFor,
} from './support/kafka-helpers';

jest.setTimeout(240_000);

/**
 * Generous on purpose: the promise is "well under the bound", and a stop that waits for Redis
 * takes the whole bound plus main.ts's margin, so half of it tells the two apart on a loaded
 * machine without timing anything tightly.
 */
const SHUTDOWN_TIMEOUT_MS = 20_000;
const REDIS_PASSWORD = 'stop-spec-redis-secret-7f3e';

/** A redis-server of this test that keeps every write on disk, so it comes back with its data. */
function startRedis(port: number, dir: string): ChildProcess {
  return spawn(
    'redis-server',
    [
      ...['--port', String(port), '--bind', '127.0.0.1', '--dir', dir],
      ...['--requirepass', REDIS_PASSWORD, '--save', ''],
      ...['--appendonly', 'yes', '--appendfsync', 'always'],
    ],
    { stdio: 'ignore' },
  );
}

async function probe(port: number, path: string) {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, {
    signal: AbortSignal.timeout(2_000),
  }).catch(() => undefined);
  if (!response) return undefined;
  return { status: response.status, text: await response.text() };
}

/** A gauge of the service's /metrics, or undefined while it does not answer. */
async function gauge(port: number, name: string): Promise<number | undefined> {
  const text = (await probe(port, '/metrics'))?.text;
  const line = text?.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.split(' ')[1]);
}

/** The group's committed offset per partition (-1: none). */
async function committed(kafka: Kafka, groupId: string, topic: string) {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const [offsets] = await admin.fetchOffsets({ groupId, topics: [topic] });
    return Object.fromEntries(offsets.partitions.map((p) => [p.partition, Number(p.offset)]));
  } finally {
    await admin.disconnect();
  }
}

async function endOffsets(kafka: Kafka, topic: string) {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const ends = await admin.fetchTopicOffsets(topic);
    return Object.fromEntries(ends.map((p) => [p.partition, Number(p.high)]));
  } finally {
    await admin.disconnect();
  }
}

interface Line {
  level: string;
  context?: string;
  msg: string;
}

/** The service's log lines after `marker`, parsed. */
function linesAfter(service: Service, marker: string): Array<Line> {
  const out = service.stdout();
  return out
    .slice(out.indexOf(marker))
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Line);
}

/** A service of one case: its own sandbox, topics, group and key prefix, on the broker given. */
async function serviceUnderTest(
  kafka: Kafka,
  brokers: string,
  redisUrl: string,
  cleanups: Array<() => unknown>,
) {
  const sandbox = new SandboxServer({ relayAccessToken: 'relay', apiKey: 'api' });
  const url = await sandbox.listen(0);
  cleanups.push(() => sandbox.close());
  const run = uniqueName('stop');
  const topic = uniqueName('user.signed_up.v1');
  const sent = uniqueName('sent');
  const groupId = uniqueName('mailbridge');
  await createTopics(kafka, [topic, sent], 3, [groupId]);
  const httpPort = await freePort();
  const env = {
    MAILBRIDGE_MODE: 'production',
    KAFKA_BROKERS: brokers,
    KAFKA_GROUP_ID: groupId,
    KAFKA_CREATE_TOPICS: 'true',
    CONSUMER_START_FROM: 'earliest',
    // Only the stop commits: what is committed at the end, the stop committed.
    CONSUMER_COMMIT_INTERVAL_MS: '600000',
    TOPIC_USER_SIGNED_UP: topic,
    TOPIC_CAMPAIGN_SENT: sent,
    TOPIC_DISPATCH_FAILED: uniqueName('failed'),
    TOPIC_DEAD_LETTER: uniqueName('dlq'),
    VENDOR_RELAY_BASE_URL: `${url}/relay/v1`,
    VENDOR_BASE_URL: `${url}/v1`,
    VENDOR_RELAY_ACCESS_TOKEN: 'relay',
    VENDOR_API_KEY: 'api',
    SUPPRESSION_HASH_KEY: 'suppression-hash-key-for-tests-only-32',
    SENDER_FROM_EMAIL: 'hello@shop.example',
    REDIS_URL: redisUrl,
    IDEMPOTENCY_KEY_PREFIX: `${run}:`,
    IDEMPOTENCY_INSTANCE_TTL_MS: '3000',
    // A service that could not leave the group (its broker was away) holds it no longer than this.
    KAFKA_SESSION_TIMEOUT_MS: '10000',
    SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
    HTTP_PORT: String(httpPort),
  };
  const publish = (events: Array<ReturnType<typeof signUp>>) =>
    produce(
      kafka,
      topic,
      events.map((e) => ({ key: e.data.userId, value: JSON.stringify(e) })),
    );
  const emailed = () =>
    sandbox.requests
      .filter((r) => r.status === 200)
      .flatMap((r) => (r.body as CampaignRequest).recipients.to.map((t) => t.email));
  return { sandbox, run, topic, sent, groupId, httpPort, env, publish, emailed };
}

describe('a stop while a dependency is away', () => {
  const cleanups: Array<() => unknown> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /**
   * Killed: the connection is refused, and ioredis queues commands between reconnection attempts.
   * Paused (SIGSTOP): the connection stays open and commands written to it get no answer; only
   * the unanswered PING tells, and Redis runs what it read once it resumes, after this process
   * has gone (claims of an instance whose heartbeat lapses: the next owner takes them over).
   */
  it.each([
    { away: 'killed', goAway: 'SIGKILL', comeBack: 'restarted on its data' },
    { away: 'paused', goAway: 'SIGSTOP', comeBack: 'resumed (SIGCONT)' },
  ] as const)(
    'Redis $away: gives up recording at once, commits what finished, leaves the rest uncommitted, says so once, exits 0; once Redis is $comeBack, the next owner sends each event once',
    async ({ goAway }) => {
      const dir = mkdtempSync(join(tmpdir(), 'mailbridge-stop-redis-'));
      const redisPort = await freePort();
      let redis = startRedis(redisPort, dir);
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
      cleanups.push(() => redis.kill('SIGKILL'));
      const kafka = testKafka();
      const { run, topic, sent, groupId, httpPort, env, publish, emailed } = await serviceUnderTest(
        kafka,
        testBrokers().join(','),
        `redis://:${REDIS_PASSWORD}@127.0.0.1:${redisPort}`,
        cleanups,
      );
      const collector = await new TopicCollector(kafka).start([sent]);
      cleanups.push(() => collector.stop());

      // Finished work: sent, recorded and published while Redis answers.
      const first = Array.from({ length: 6 }, (_, i) => signUp(i, run));
      const second = Array.from({ length: 12 }, (_, i) => signUp(100 + i, run));
      const service = startService(env);
      cleanups.push(() => service.child.kill('SIGKILL'));
      await publish(first);
      await waitFor(() => (collector.count(sent) >= first.length ? true : undefined), {
        timeoutMs: 90_000,
        what: 'the first events sent',
      });
      await waitFor(
        async () =>
          (await gauge(httpPort, 'mailbridge_consumer_in_flight_records')) === 0 ? true : undefined,
        { what: 'the first records to finish' },
      );
      const finishedEnds = await endOffsets(kafka, topic);

      // Redis goes away; work arrives that cannot be claimed.
      redis.kill(goAway);
      await waitFor(
        async () => {
          const ready = await probe(httpPort, '/health/ready');
          return ready?.status === 503 && ready.text.includes('Redis') ? true : undefined;
        },
        { what: 'readiness to name Redis' },
      );
      await publish(second);
      await waitFor(
        async () =>
          (await gauge(httpPort, 'mailbridge_consumer_in_flight_records')) === second.length
            ? true
            : undefined,
        { what: 'the second records in flight' },
      );

      const stop = await terminate(service);
      process.stderr.write(`[figures] stop with Redis away: ${stop.ms} ms, exit ${stop.code}\n`);
      expect(stop.code).toBe(0);
      expect(stop.ms).toBeLessThan(SHUTDOWN_TIMEOUT_MS / 2);
      const said = linesAfter(service, 'SIGTERM: stopping');
      const gaveUp = said.filter((l) => l.msg.includes('left uncommitted'));
      expect(gaveUp).toHaveLength(1);
      // The one line an operator needs, not one per thing that met the missing Redis (kafkajs'
      // own lines aside: they report the broker, which is fine here).
      const warnings = said.filter((l) => l.level !== 'info' && l.context !== 'kafkajs');
      expect(warnings).toEqual(gaveUp);
      process.stderr.write(`[figures] ${gaveUp[0].level}: ${gaveUp[0].msg}\n`);
      expect(gaveUp[0].level).toBe('warn');
      expect(gaveUp[0].msg).toContain(`${second.length} record(s)`);
      expect(gaveUp[0].msg).toContain('Redis');
      expect(service.output()).not.toContain(REDIS_PASSWORD);
      expect(service.output()).not.toContain('did not finish within');

      // What finished is committed, and nothing past it (-1: a partition with nothing finished).
      const expected = Object.fromEntries(
        Object.entries(finishedEnds).map(([partition, end]) => [partition, end === 0 ? -1 : end]),
      );
      expect(await committed(kafka, groupId, topic)).toEqual(expected);

      // Redis back with its data, and a new owner: every event sent exactly once in all.
      if (goAway === 'SIGSTOP') redis.kill('SIGCONT');
      else redis = startRedis(redisPort, dir);
      const next = startService(env);
      cleanups.push(() => next.child.kill('SIGKILL'));
      const everyone = [...first, ...second];
      await waitFor(() => (collector.count(sent) >= everyone.length ? true : undefined), {
        timeoutMs: 90_000,
        what: 'every event sent',
      });
      expect((await terminate(next)).code).toBe(0);
      expect(emailed().sort()).toEqual(everyone.map((e) => e.data.email).sort());
    },
  );

  /**
   * The broker stops while records are between their vendor answer and their result: the
   * outcome is in Redis, the result cannot be published and the offset cannot be committed. The
   * next owner reads the records again, finds their outcomes and publishes the results without a
   * second email.
   */
  it('Kafka stopped: gives up waiting for results and the commit, says so once, exits 0; once the broker is back, the next owner publishes every result without a second email', async () => {
    const broker = await PrivateBroker.start();
    cleanups.push(() => broker.destroy());
    const kafka = broker.kafka();
    const { sandbox, run, sent, httpPort, env, publish, emailed } = await serviceUnderTest(
      kafka,
      broker.address,
      'redis://127.0.0.1:6379',
      cleanups,
    );
    const events = Array.from({ length: 8 }, (_, i) => signUp(i, run));

    // The vendor holds its answers, so the records are in flight when the broker stops.
    sandbox.setFaults({ latencyMs: 3_000 });
    const service = startService(env);
    cleanups.push(() => service.child.kill('SIGKILL'));
    await publish(events);
    await waitFor(() => (Object.values(sandbox.stats.held).some((n) => n > 0) ? true : undefined), {
      timeoutMs: 90_000,
      what: 'the vendor to hold a request',
    });
    await broker.stop();
    await waitFor(() => (emailed().length >= events.length ? true : undefined), {
      what: 'every event answered by the vendor',
    });
    await waitFor(
      async () => {
        const ready = await probe(httpPort, '/health/ready');
        return ready?.status === 503 && ready.text.includes('Kafka') ? true : undefined;
      },
      { what: 'readiness to name the broker' },
    );
    expect(await gauge(httpPort, 'mailbridge_consumer_in_flight_records')).toBe(events.length);

    const stop = await terminate(service);
    process.stderr.write(`[figures] stop with Kafka away: ${stop.ms} ms, exit ${stop.code}\n`);
    expect(stop.code).toBe(0);
    expect(stop.ms).toBeLessThan(SHUTDOWN_TIMEOUT_MS / 2);
    const gaveUp = linesAfter(service, 'SIGTERM: stopping').filter((l) =>
      l.msg.includes('left uncommitted'),
    );
    expect(gaveUp).toHaveLength(1);
    process.stderr.write(`[figures] ${gaveUp[0].level}: ${gaveUp[0].msg}\n`);
    expect(gaveUp[0].level).toBe('warn');
    expect(gaveUp[0].msg).toContain(`${events.length} record(s)`);
    expect(gaveUp[0].msg).toContain('Kafka broker');
    expect(service.output()).not.toContain('did not finish within');

    // The broker back on its data, and a new owner: every result, and still one email each.
    await broker.restart();
    sandbox.setFaults({});
    const collector = await new TopicCollector(kafka).start([sent]);
    cleanups.push(() => collector.stop());
    const next = startService(env);
    cleanups.push(() => next.child.kill('SIGKILL'));
    await waitFor(() => (collector.answered(sent).size >= events.length ? true : undefined), {
      timeoutMs: 90_000,
      what: 'a result for every event',
    });
    expect((await terminate(next)).code).toBe(0);
    expect(emailed().sort()).toEqual(events.map((e) => e.data.email).sort());
  });
});
