import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import type { EmailCampaignSentV1 } from '../../src/contracts/email-campaign-sent.v1';
import { order, signUp } from '../support/events';
import { freePort } from '../support/free-port';
import {
  TopicCollector,
  produce,
  testBrokers,
  testKafka,
  uniqueName,
  waitFor,
} from '../support/kafka-helpers';
import { PipelineFixture } from '../support/service-harness';
import { baseImages, docker, engine, inspect, logs, run, waitHealthy } from './docker';

/**
 * The image built from the Dockerfile, run as users run it: as the non-root user, read-only root
 * filesystem, against the suite's real broker, the machine's Redis and the vendor sandbox; then
 * docker-compose.yml (with test/container/docker-compose.host.yml for this machine) the same way.
 * The Docker engine is scripts/container/dockerd.sh's, the base image the stand-in of
 * scripts/container/base-images.sh (no registry is reachable here).
 */

/** SHUTDOWN_TIMEOUT_MS (15 s) + the 5 s margin of main.ts, + 5 s: compose's stop_grace_period. */
const GRACE_S = 25;
const IMAGE = 'mailbridge:container-test';

jest.setTimeout(120_000);

let imageSize = 0;

beforeAll(() => {
  engine('start');
  const started = Date.now();
  baseImages();
  process.stderr.write(`\n[container] base image ready in ${Date.now() - started} ms\n`);
}, 20 * 60_000);

afterAll(() => {
  engine('stop');
});

describe('the image', () => {
  it(
    'builds from the Dockerfile',
    async () => {
      const started = Date.now();
      // --network host: the engine has no bridge; RUN npm install reaches the registry this way.
      await docker(['build', '--network', 'host', '-t', IMAGE, '.'], 15 * 60_000);
      imageSize = Number(await docker(['image', 'inspect', '--format', '{{.Size}}', IMAGE]));
      process.stderr.write(
        `[container] image ${IMAGE} built in ${Date.now() - started} ms; ` +
          `size ${imageSize} bytes (${(imageSize / 1e6).toFixed(1)} MB)\n`,
      );
      expect(imageSize).toBeGreaterThan(0);
      const config = JSON.parse(
        await docker(['image', 'inspect', '--format', '{{json .Config}}', IMAGE]),
      ) as { User: string; Cmd: string[]; Healthcheck?: { Test: string[] } };
      expect(config.User).toBe('node');
      expect(config.Cmd).toEqual(['node', '--heap-growing-percent=100', 'dist/main.js']);
      expect(config.Healthcheck?.Test.join(' ')).toContain('/health/ready');
    },
    16 * 60_000,
  );

  it('carries patches/: kafkajs’ encoder takes unzeroed buffers, its idle request queues set no timer; the log destination keeps its pending length', async () => {
    const inImage = (path: string) =>
      docker(['run', '--rm', '--network', 'host', IMAGE, 'cat', `node_modules/${path}`]);
    const encoder = await inImage('kafkajs/src/protocol/encoder.js');
    expect(encoder).toContain('Buffer.allocUnsafe(Encoder.nextPowerOfTwo(initialSize))');
    expect(encoder).not.toContain('Buffer.alloc(');
    const requestQueue = await inImage('kafkajs/src/network/requestQueue/index.js');
    expect(requestQueue).toContain('} else if (scheduleAt <= 0) {');
    const destination = await inImage('sonic-boom/index.js');
    expect(destination).toContain('this._lastBufLen = lastLen + dataLen');
  });
});

describe('docker run: non-root, read-only root filesystem, host network', () => {
  const fixture = new PipelineFixture();
  let id = '';

  beforeAll(async () => {
    await fixture.start();
    const env = fixture.env({ HTTP_PORT: String(await freePort()), LOG_LEVEL: 'log' });
    const envArgs = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    id = await docker([
      'run',
      '--detach',
      '--network',
      'host',
      '--read-only',
      '--user',
      'node',
      ...envArgs,
      IMAGE,
    ]);
  });

  afterAll(async () => {
    if (id) await docker(['rm', '--force', id]).catch(() => undefined);
    await fixture.stop();
  });

  it('runs as node (uid 1000) and cannot write its root filesystem', async () => {
    const state = await inspect(id);
    expect(state.Config.User).toBe('node');
    expect(state.HostConfig.ReadonlyRootfs).toBe(true);
    expect(state.HostConfig.NetworkMode).toBe('host');
    expect(await docker(['exec', id, 'id', '-u'])).toBe('1000');
    // The service itself is PID 1, with the image's V8 flag (the heap limits come in NODE_OPTIONS).
    const cmdline = await docker(['exec', id, 'cat', '/proc/1/cmdline']);
    expect(cmdline.split('\0').filter(Boolean)).toEqual([
      'node',
      '--heap-growing-percent=100',
      'dist/main.js',
    ]);
    expect(await docker(['exec', id, 'printenv', 'NODE_OPTIONS'])).toBe(
      '--max-old-space-size=128 --max-semi-space-size=8',
    );
    await expect(docker(['exec', id, 'touch', '/app/probe'])).rejects.toThrow(
      /Read-only file system/,
    );
  });

  it('becomes healthy: the HEALTHCHECK finds the consumer ready', async () => {
    const ms = await waitHealthy(id);
    process.stderr.write(`[container] docker run: healthy after ${ms} ms more\n`);
    expect((await inspect(id)).State.Health?.Status).toBe('healthy');
  });

  it('sends a sign-up and an order and publishes both results', async () => {
    const tag = uniqueName('container');
    const user = signUp(1, tag);
    const placed = order(1, tag);
    await fixture.publish('TOPIC_USER_SIGNED_UP', [user], (e) => e.data.userId);
    await fixture.publish('TOPIC_ORDER_PLACED', [placed], (e) => e.data.orderId);

    const t = fixture.topics;
    const sent = await expectBothResults(
      fixture.collector,
      { sent: t.TOPIC_CAMPAIGN_SENT, failed: t.TOPIC_DISPATCH_FAILED, dead: t.TOPIC_DEAD_LETTER },
      { user, placed },
      () => logs(id),
    );
    const sends = fixture.sandbox.requests.filter((r) => r.path === '/relay/v1/email/campaign');
    expect(sends).toHaveLength(2);
    expect(sent.map((r) => r.data.requestId).sort()).toEqual(
      sends.map((r) => (r.response as { requestId: string }).requestId).sort(),
    );
  });

  it(`stops on SIGTERM with exit code 0 within the grace period (${GRACE_S} s)`, async () => {
    const started = Date.now();
    // docker stop sends SIGTERM, then SIGKILL (exit 137) once the grace period is over.
    await docker(['stop', '--time', String(GRACE_S), id], (GRACE_S + 30) * 1000);
    const ms = Date.now() - started;
    const state = (await inspect(id)).State;
    process.stderr.write(`[container] docker run: stopped in ${ms} ms, exit ${state.ExitCode}\n`);
    expect({ exitCode: state.ExitCode, oomKilled: state.OOMKilled }).toEqual({
      exitCode: 0,
      oomKilled: false,
    });
    expect(ms).toBeLessThan(GRACE_S * 1000);
    expect(await logs(id)).toContain('SIGTERM: stopping');
  });
});

/**
 * Waits for the campaign results of the sign-up and the order (both runs publish one of each) and
 * checks that they are theirs and that nothing failed or was dead-lettered; the container's log
 * goes into the error when they do not come.
 */
async function expectBothResults(
  collector: TopicCollector,
  topics: { sent: string; failed: string; dead: string },
  { user, placed }: { user: { id: string }; placed: { id: string } },
  logsOnTimeout: () => Promise<string>,
): Promise<EmailCampaignSentV1[]> {
  const ours = new Set([user.id, placed.id]);
  const sent = await waitFor(
    () => {
      const results = collector
        .results<EmailCampaignSentV1>(topics.sent)
        .filter((r) => ours.has(r.sourceeventid));
      return results.length >= 2 ? results : undefined;
    },
    { timeoutMs: 60_000, what: 'two email.campaign.sent.v1 results' },
  ).catch(async (error: Error) => {
    throw new Error(`${error.message}\n${await logsOnTimeout()}`);
  });
  expect(sent.map((r) => [r.sourceeventid, r.data.sourceEventType]).sort()).toEqual(
    [
      [user.id, 'user.signed_up.v1'],
      [placed.id, 'order.placed.v1'],
    ].sort(),
  );
  expect(collector.count(topics.failed)).toBe(0);
  expect(collector.count(topics.dead)).toBe(0);
  return sent;
}

/** Fails, saying why, when something on this machine already listens on `port`. */
function assertPortFree(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', (error) =>
      reject(new Error(`port ${port}, which docker-compose.yml uses, is taken: ${error.message}`)),
    );
    server.listen(port, '0.0.0.0', () => server.close(() => resolve()));
  });
}

describe('docker-compose.yml, with the override for this machine', () => {
  const project = `mbci${randomUUID().slice(0, 8)}`;
  const files = ['-f', 'docker-compose.yml', '-f', 'test/container/docker-compose.host.yml'];
  const env: NodeJS.ProcessEnv = { ...process.env };
  const compose = (args: string[], timeoutMs = 120_000) =>
    run('docker-compose', ['-p', project, ...files, ...args], { env, timeoutMs });
  /** docker-compose.yml's own: the sandbox's port, and its address for mailbridge. */
  const sandboxPort = 8025;
  let mailbridge = '';
  let sandbox = '';
  let collector: TopicCollector | undefined;
  const kafka = testKafka();

  beforeAll(async () => {
    await assertPortFree(sandboxPort);
    Object.assign(env, {
      MAILBRIDGE_CI_KAFKA: testBrokers()[0],
      MAILBRIDGE_CI_HTTP_PORT: String(await freePort()),
      MAILBRIDGE_CI_KEY_PREFIX: `${uniqueName('mailbridge-container-test')}:`,
    });
  });

  afterAll(async () => {
    await collector?.stop();
    await compose(['down', '--volumes', '--remove-orphans', '--rmi', 'local', '--timeout', '5'])
      .catch((e: Error) => process.stderr.write(`[container] compose down: ${e.message}\n`))
      .finally(async () => {
        // Whatever compose left behind, by container id.
        const left = await docker([
          'ps',
          '--all',
          '--quiet',
          '--filter',
          `label=com.docker.compose.project=${project}`,
        ]).catch(() => '');
        if (left) await docker(['rm', '--force', ...left.split('\n')]).catch(() => undefined);
      });
  });

  it(
    'starts: kafka and the sandbox healthy first, then mailbridge healthy',
    async () => {
      await compose(['up', '--detach', '--build'], 15 * 60_000);
      mailbridge = await compose(['ps', '--quiet', 'mailbridge']);
      sandbox = await compose(['ps', '--quiet', 'sandbox']);
      expect(mailbridge).toMatch(/^[0-9a-f]{64}$/);
      expect((await inspect(sandbox)).State.Health?.Status).toBe('healthy');
      const kafkaPlaceholder = await compose(['ps', '--quiet', 'kafka']);
      expect((await inspect(kafkaPlaceholder)).State.Health?.Status).toBe('healthy');
      const ms = await waitHealthy(mailbridge);
      process.stderr.write(`[container] compose: mailbridge healthy after ${ms} ms more\n`);
      expect((await inspect(mailbridge)).Config.User).toBe('node');
    },
    16 * 60_000,
  );

  it('sends a sign-up and an order on the default topics and publishes both results', async () => {
    const tag = uniqueName('compose');
    const user = signUp(2, tag);
    const placed = order(2, tag);
    collector = await new TopicCollector(kafka).start([
      'email.campaign.sent.v1',
      'email.dispatch.failed.v1',
      'mailbridge.dead-letter.v1',
    ]);
    await produce(kafka, 'user.signed_up.v1', [
      { key: user.data.userId, value: JSON.stringify(user) },
    ]);
    await produce(kafka, 'order.placed.v1', [
      { key: placed.data.orderId, value: JSON.stringify(placed) },
    ]);
    await expectBothResults(
      collector,
      {
        sent: 'email.campaign.sent.v1',
        failed: 'email.dispatch.failed.v1',
        dead: 'mailbridge.dead-letter.v1',
      },
      { user, placed },
      () => logs(mailbridge),
    );
    // The sandbox container received both sends and accepted every request: the keys
    // docker-compose.yml gives mailbridge are the sandbox's.
    const recorded = (await (
      await fetch(`http://127.0.0.1:${sandboxPort}/_sandbox/requests`)
    ).json()) as Array<{ path: string; status: number }>;
    expect(recorded.filter((r) => r.path === '/relay/v1/email/campaign')).toHaveLength(2);
    expect(recorded.filter((r) => r.status !== 200)).toEqual([]);
    // mailbridge reached the broker and Redis by the names docker-compose.yml gives them
    // (kafka:9092, redis:6379), through the placeholders' forwarders.
    for (const service of ['kafka', 'redis']) {
      const log = await logs(await compose(['ps', '--quiet', service]));
      expect({ service, connected: /connection from/.test(log) }).toEqual({
        service,
        connected: true,
      });
    }
  });

  it(`stops mailbridge on SIGTERM with exit code 0 within stop_grace_period (${GRACE_S} s)`, async () => {
    const started = Date.now();
    // No --timeout: compose takes the grace period from docker-compose.yml (stop_grace_period).
    await compose(['stop', 'mailbridge'], (GRACE_S + 30) * 1000);
    const ms = Date.now() - started;
    const state = (await inspect(mailbridge)).State;
    process.stderr.write(`[container] compose: stopped in ${ms} ms, exit ${state.ExitCode}\n`);
    expect(state.ExitCode).toBe(0);
    expect(ms).toBeLessThan(GRACE_S * 1000);
    expect(await logs(mailbridge)).toContain('SIGTERM: stopping');
  });

  it('goes down and leaves no container behind', async () => {
    await compose(['down', '--volumes', '--remove-orphans', '--timeout', String(GRACE_S)]);
    const left = await docker([
      'ps',
      '--all',
      '--quiet',
      '--filter',
      `label=com.docker.compose.project=${project}`,
    ]);
    expect(left).toBe('');
  });
});
