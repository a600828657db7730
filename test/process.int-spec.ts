import { readFileSync } from 'node:fs';
import { AssignerProtocol, type Consumer, type PartitionAssigner } from 'kafkajs';
import { SandboxServer } from '../src/sandbox/sandbox.server';
import type { FaultConfig } from '../src/sandbox/sandbox-options';
import { signUp } from './support/events';
import { freePort } from './support/free-port';
import { startService, terminate, type Service } from './support/service-process';
import {
  createTopics,
  produce,
  testBrokers,
  testKafka,
  uniqueName,
  waitFor,
} from './support/kafka-helpers';

jest.setTimeout(150_000); // above LIVE_WALL_MS and a stop, whatever the load

/** What `main.ts` allows a stop beyond SHUTDOWN_TIMEOUT_MS (docs/operations.md, "Health and shutdown"). */
const SHUTDOWN_MARGIN_MS = 5_000;
/** Between the child's exit and the parent's 'exit' event, on a busy machine. */
const EXIT_SEEN_MS = 1_000;
/**
 * "/health/live answers from the start, while the consumer is still joining" (docs/operations.md): the join
 * is held up for {@link HOLD_MS}, twice the time the answer may take, so an answer in time cannot
 * have waited for it; the spec also finds readiness still 503 "not joined" once it has answered.
 * The bound is wide because two cores running other spec files and stress-ng beside this one
 * slow a Node process's start tenfold. How much CPU the process used until then is printed, not
 * asserted: it is a figure of start-up cost, not a promise.
 */
const LIVE_WALL_MS = 60_000;
/** How long the holder below keeps the group's join from completing. */
const HOLD_MS = 2 * LIVE_WALL_MS;

/** CPU time (user + system) a process has used so far, from /proc. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15)
  return (ticks * 1000) / 100; // USER_HZ is 100 on Linux
}

/** `/health/live` answers 200 within the bounds above; prints what it measured. */
async function expectLiveEarly(service: Service, port: number, started: number, what: string) {
  const live = await waitFor(() => probe(port, '/health/live'), {
    what: '/health/live',
    timeoutMs: LIVE_WALL_MS,
  });
  const answeredAfter = Date.now() - started;
  const cpu = cpuMs(service.child.pid!);
  expect(live.status).toBe(200);
  expect(answeredAfter).toBeLessThan(LIVE_WALL_MS);
  process.stderr.write(
    `[figures] /health/live answered ${answeredAfter} ms after spawn (${cpu} ms of CPU), ${what}\n`,
  );
}

/** The HTTP status (and body) of a health endpoint, or undefined while nothing answers. */
async function probe(port: number, path: string) {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, {
    signal: AbortSignal.timeout(2_000),
  }).catch(() => undefined);
  if (!response) return undefined;
  return { status: response.status, body: (await response.json()) as { reason?: string } };
}

async function untilReady(port: number): Promise<void> {
  await waitFor(
    async () => ((await probe(port, '/health/ready'))?.status === 200 ? true : undefined),
    { what: 'readiness', intervalMs: 200 },
  );
}

/** A sandbox, a topic and a group of one test, and the environment of a service using them. */
async function setUp(faults?: FaultConfig) {
  const sandbox = new SandboxServer({ relayAccessToken: 'relay', apiKey: 'api', faults });
  const url = await sandbox.listen(0);
  const topic = uniqueName('user.signed_up.v1');
  const groupId = uniqueName('mailbridge');
  const kafka = testKafka();
  await createTopics(kafka, [topic], 3, [groupId]);
  const port = await freePort();
  const env = (overrides: Record<string, string> = {}) => ({
    MAILBRIDGE_MODE: 'production',
    KAFKA_BROKERS: testBrokers().join(','),
    KAFKA_GROUP_ID: groupId,
    KAFKA_CREATE_TOPICS: 'true',
    CONSUMER_START_FROM: 'earliest',
    TOPIC_USER_SIGNED_UP: topic,
    TOPIC_CAMPAIGN_SENT: uniqueName('sent'),
    TOPIC_DISPATCH_FAILED: uniqueName('failed'),
    TOPIC_DEAD_LETTER: uniqueName('dlq'),
    VENDOR_RELAY_BASE_URL: `${url}/relay/v1`,
    VENDOR_BASE_URL: `${url}/v1`,
    VENDOR_RELAY_ACCESS_TOKEN: 'relay',
    VENDOR_API_KEY: 'api',
    SUPPRESSION_HASH_KEY: 'suppression-hash-key-for-tests-only-32',
    SENDER_FROM_EMAIL: 'hello@shop.example',
    HTTP_PORT: String(port),
    ...overrides,
  });
  return { sandbox, topic, groupId, kafka, port, env };
}

describe('the service process', () => {
  const cleanups: Array<() => unknown> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  /** Registers a service to kill and a sandbox to close, whatever the test's outcome. */
  function track(service: Service, sandbox?: SandboxServer): Service {
    cleanups.push(
      () => sandbox?.close(),
      () => service.child.kill('SIGKILL'),
    );
    return service;
  }

  it('refuses to start on a bad environment, naming every variable and printing no key', async () => {
    const started = Date.now();
    const service = startService({
      MAILBRIDGE_MODE: 'production',
      VENDOR_RELAY_ACCESS_TOKEN: 'very-secret-relay-key',
      VENDOR_RELAY_BASE_URL: 'not-a-url',
      HTTP_PORT: '0',
    });
    expect(await service.exited).toBe(78);
    expect(Date.now() - started).toBeLessThan(10_000);
    const output = service.output();
    for (const name of [
      'KAFKA_BROKERS',
      'VENDOR_API_KEY',
      'SENDER_FROM_EMAIL',
      'VENDOR_RELAY_BASE_URL',
    ]) {
      expect(output).toContain(name);
    }
    expect(output).not.toContain('very-secret-relay-key');
  });

  it('refuses a Node older than it needs with a message that says so, before loading anything', async () => {
    // The real binary, told it is Node 20 (the version a machine's own node may be).
    const service = startService({
      NODE_OPTIONS:
        '--import=data:text/javascript,Object.defineProperty(process.versions,`node`,{value:`20.19.0`})',
    });
    expect(await service.exited).toBe(1);
    const output = service.output();
    expect(output).toContain('mailbridge needs Node 24.9.0 or later and this is Node 20.19.0');
    expect(output).not.toContain('failed to start');
  });

  it('stops on SIGTERM: leaves its group, disconnects and exits 0', async () => {
    const { sandbox, port, env } = await setUp();
    const service = track(startService(env()), sandbox);
    await untilReady(port);
    expect((await terminate(service)).code).toBe(0);
    expect(service.output()).toContain('consumer stopped');
    expect(service.output()).toContain('producer disconnected');
    // Node warns at the first timer set with a negative delay. Unpatched, kafkajs' request queue
    // sets one on every connection after its first response and every millisecond after that
    // (patches/kafkajs+2.2.4.patch; src/kafka/kafkajs-request-queue.spec.ts).
    expect(service.output()).not.toContain('TimeoutNegativeWarning');
  });

  it('warns at start of a CONSUMER_MAX_IN_FLIGHT its heap cannot hold, and runs', async () => {
    const { sandbox, port, env } = await setUp();
    // The image's heap flags: a heap limit of 152 MB.
    const heap = '--max-old-space-size=128 --max-semi-space-size=8';
    const service = track(
      startService(env({ NODE_OPTIONS: heap, CONSUMER_MAX_IN_FLIGHT: '5000' })),
      sandbox,
    );
    await untilReady(port);
    // Logged before the service listens, but written in the background and read here through a
    // pipe: on a saturated CPU readiness can answer before the line has arrived.
    const warning = await waitFor(
      () => {
        const lines = service
          .stdout()
          .split('\n')
          .filter(
            (line) => line.includes('"level":"warn"') && line.includes('CONSUMER_MAX_IN_FLIGHT'),
          );
        return lines.length > 0 ? lines : undefined;
      },
      { what: 'the window warning on stdout' },
    );
    expect(warning).toHaveLength(1);
    expect(warning[0]).toContain(
      'CONSUMER_MAX_IN_FLIGHT=5000 needs about 143 MB of live heap at a full window',
    );
    expect((await terminate(service)).code).toBe(0);
  });

  it('exits 0 at once on a SIGTERM while the app is still being built', async () => {
    const { sandbox, env } = await setUp();
    const service = track(startService(env({ LOG_LEVEL: 'log' })), sandbox);
    await waitFor(
      () => (service.output().includes('Starting Nest application') ? true : undefined),
      {
        what: 'Nest to start building the app',
      },
    );
    const { code, ms } = await terminate(service);
    expect(code).toBe(0);
    expect(ms).toBeLessThan(10_000);
  });

  describe('while its group join is held up by a member that does not rejoin', () => {
    let holder: Consumer;
    let release: () => void = () => undefined;

    afterEach(async () => {
      release();
      await holder?.disconnect();
    });

    /**
     * A member of the group that sits on a batch without heartbeats: the coordinator cannot
     * finish the rebalance a new member's join starts until that member's session (HOLD_MS) ends.
     */
    async function holdTheGroup(topic: string, groupId: string): Promise<void> {
      const kafka = testKafka();
      await produce(kafka, topic, [{ value: 'held' }]);
      const held = new Promise<void>((resolve) => (release = resolve));
      let holding = false;
      holder = kafka.consumer({ groupId, sessionTimeout: HOLD_MS, rebalanceTimeout: HOLD_MS });
      await holder.connect();
      await holder.subscribe({ topics: [topic], fromBeginning: true });
      await holder.run({
        eachBatch: async () => {
          holding = true;
          await held;
        },
      });
      await waitFor(() => (holding ? true : undefined), { what: 'the holder to get its batch' });
    }

    it('answers /health/live before the group join completes, /health/ready 503, and stops on SIGTERM', async () => {
      const { sandbox, topic, groupId, port, env } = await setUp();
      await holdTheGroup(topic, groupId);
      const started = Date.now();
      const service = track(
        startService(env({ LOG_LEVEL: 'log', SHUTDOWN_TIMEOUT_MS: '5000' })),
        sandbox,
      );
      await expectLiveEarly(service, port, started, 'join pending');
      const ready = await probe(port, '/health/ready');
      expect(ready?.status).toBe(503);
      expect(ready?.body.reason).toContain('not joined');

      // A SIGTERM before the join completed: the stop does not wait for the group.
      expect(service.output()).not.toContain('consuming '); // the join is still pending
      const { code, ms } = await terminate(service);
      expect(code).toBe(0);
      expect(ms).toBeLessThan(5_000 + SHUTDOWN_MARGIN_MS);
    });
  });

  it('answers /health/live while no broker can be reached, and stops on SIGTERM', async () => {
    const { sandbox, env } = await setUp();
    const nowhere = await freePort();
    const started = Date.now();
    const service = track(
      startService(
        env({
          KAFKA_BROKERS: `127.0.0.1:${nowhere}`,
          KAFKA_CREATE_TOPICS: 'false',
          SHUTDOWN_TIMEOUT_MS: '3000',
        }),
      ),
      sandbox,
    );
    const port = Number(env().HTTP_PORT);
    await expectLiveEarly(service, port, started, 'no broker');
    expect((await probe(port, '/health/ready'))?.status).toBe(503);
    const { code, ms } = await terminate(service);
    expect(code).toBe(0);
    expect(ms).toBeLessThan(3_000 + SHUTDOWN_MARGIN_MS + EXIT_SEEN_MS);
  });

  it('exits 0 within SHUTDOWN_TIMEOUT_MS on a SIGTERM while the vendor hangs', async () => {
    const { sandbox, topic, kafka, env } = await setUp({ hangShare: 1 });
    const run = uniqueName('hang');
    await produce(
      kafka,
      topic,
      Array.from({ length: 20 }, (_, i) => ({ value: JSON.stringify(signUp(i, run)) })),
    );
    const service = track(
      startService(env({ SHUTDOWN_TIMEOUT_MS: '3000', VENDOR_HEADERS_TIMEOUT_MS: '120000' })),
      sandbox,
    );
    await waitFor(() => ((sandbox.stats.byFault.hang ?? 0) > 0 ? true : undefined), {
      what: 'a vendor request to hang',
    });
    const { ms, code } = await terminate(service);
    expect(ms).toBeLessThan(3_000 + EXIT_SEEN_MS);
    // A clean exit, not the hard one: the requests the vendor holds are aborted after the stop's
    // wait for them (a third of SHUTDOWN_TIMEOUT_MS here), and their records given back.
    expect(code).toBe(0);
    expect(service.output()).toMatch(
      /on the wire at the stop, [1-9]\d* of them aborted unanswered after 1000 ms/,
    );
    expect(service.output()).toContain('consumer stopped');
  });

  it('fails /health/live within 30 s of a consumer crash that kafkajs will not restart', async () => {
    const { sandbox, topic, groupId, port, env } = await setUp();
    // Another application holds the group with an assignment protocol mailbridge does not speak:
    // the broker refuses mailbridge's join with INCONSISTENT_GROUP_PROTOCOL, which kafkajs
    // treats as fatal (no restart), as it would a group id shared by mistake in production.
    const foreign = testKafka().consumer({ groupId, partitionAssigners: [foreignAssigner] });
    cleanups.push(() => foreign.disconnect());
    await foreign.connect();
    await foreign.subscribe({ topics: [topic] });
    let joined = false;
    foreign.on(foreign.events.GROUP_JOIN, () => (joined = true));
    await foreign.run({ eachBatch: () => Promise.resolve() });
    await waitFor(() => (joined ? true : undefined), { what: 'the foreign member to join' });

    const service = track(startService(env()), sandbox);
    await waitFor(() => (service.output().includes('restart: false') ? true : undefined), {
      what: 'the consumer crash',
    }).catch((e: Error) => {
      throw new Error(e.message + service.output());
    });
    const crashed = Date.now();
    const live = await waitFor(
      async () => {
        const answer = await probe(port, '/health/live');
        return answer?.status === 503 ? answer : undefined;
      },
      { timeoutMs: 30_000, what: '/health/live to fail' },
    );
    expect(Date.now() - crashed).toBeLessThan(30_000);
    expect(live.body.reason).toContain('will not restart');
    expect((await probe(port, '/health/ready'))?.status).toBe(503);
    expect((await terminate(service)).code).toBe(0);
  });
});

/** An assignment protocol no mailbridge consumer offers; assigns nothing. */
const foreignAssigner: PartitionAssigner = () => ({
  name: 'ForeignAssigner',
  version: 1,
  protocol: ({ topics }) => ({
    name: 'ForeignAssigner',
    metadata: AssignerProtocol.MemberMetadata.encode({
      version: 1,
      topics,
      userData: Buffer.alloc(0),
    }),
  }),
  assign: ({ members }) =>
    Promise.resolve(
      members.map(({ memberId }) => ({
        memberId,
        memberAssignment: AssignerProtocol.MemberAssignment.encode({
          version: 1,
          assignment: {},
          userData: Buffer.alloc(0),
        }),
      })),
    ),
});
