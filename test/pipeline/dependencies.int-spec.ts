import type { INestApplication } from '@nestjs/common';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApp } from '../../src/app';
import { loadConfig } from '../../src/config/config.loader';
import { SandboxServer } from '../../src/sandbox/sandbox.server';
import { freePort } from '../support/free-port';
import { logCapture } from '../support/log-capture';
import { createTopics, testKafka, uniqueName, waitFor } from '../support/kafka-helpers';
import { PrivateBroker } from '../support/private-broker';
import {
  API_KEY,
  PipelineFixture,
  RELAY_KEY,
  serviceEnv,
  uniqueTopics,
} from '../support/service-harness';

jest.setTimeout(180_000);

const REDIS_PASSWORD = 'hunter2-redis-secret';

interface Health {
  status: number;
  reason?: string;
}

async function health(app: INestApplication, path: 'live' | 'ready'): Promise<Health> {
  const { port } = (app.getHttpServer() as Server).address() as AddressInfo;
  const response = await fetch(`http://127.0.0.1:${port}/health/${path}`);
  const body = (await response.json()) as { reason?: string };
  return { status: response.status, reason: body.reason };
}

function readyWhen(
  app: INestApplication,
  accept: (h: Health) => boolean,
  what: string,
  ms: number,
) {
  return waitFor(
    async () => {
      const h = await health(app, 'ready');
      return accept(h) ? h : undefined;
    },
    { timeoutMs: ms, intervalMs: 100, what },
  );
}

/**
 * Everything this process writes while a test runs: the console, stdout and stderr, and the
 * service's log (which pino writes to file descriptor 1 directly: the service is given
 * `destination` instead).
 */
function captureOutput() {
  const lines: string[] = [];
  const { destination } = logCapture(lines);
  const targets: Array<[object, string]> = [
    [process.stdout, 'write'],
    [process.stderr, 'write'],
    [console, 'error'],
    [console, 'warn'],
    [console, 'log'],
  ];
  const originals = targets.map(([target, name]) => {
    const record = target as Record<string, (...args: unknown[]) => unknown>;
    const original = record[name];
    record[name] = (...args: unknown[]) => {
      lines.push(args.map(String).join(' '));
      return original.apply(target, args);
    };
    return () => (record[name] = original);
  });
  return {
    destination,
    text: () => lines.join('\n'),
    restore: () => originals.forEach((restore) => restore()),
  };
}

function startRedis(port: number, dir: string): ChildProcess {
  return spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
      '--requirepass',
      REDIS_PASSWORD,
    ],
    { stdio: 'ignore' },
  );
}

describe('dependencies that go away', () => {
  describe('Redis killed while the service runs', () => {
    const fixture = new PipelineFixture();
    const dir = mkdtempSync(join(tmpdir(), 'mailbridge-redis-'));
    let redis: ChildProcess | undefined;
    let port: number;
    let app: INestApplication;
    let output: ReturnType<typeof captureOutput>;

    beforeAll(async () => {
      port = await freePort();
      redis = startRedis(port, dir);
      await fixture.start();
      output = captureOutput();
      app = await fixture.startService(
        {
          REDIS_URL: `redis://:${REDIS_PASSWORD}@127.0.0.1:${port}`,
          LOG_LEVEL: 'log',
        },
        { logTo: output.destination },
      );
    });
    afterAll(async () => {
      output?.restore();
      await fixture.stop();
      redis?.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    });

    it('turns readiness 503 naming Redis within seconds, and 200 again once it is back', async () => {
      await readyWhen(app, (h) => h.status === 200, 'readiness before the outage', 30_000);

      redis!.kill('SIGKILL');
      const down = await readyWhen(
        app,
        (h) => h.status === 503 && /Redis/.test(h.reason ?? ''),
        'readiness to name Redis',
        5_000,
      );
      expect(down.reason).toMatch(/Redis.*unreachable/);
      expect((await health(app, 'live')).status).toBe(200); // a restart would not bring Redis back

      // Let ioredis try to reconnect a few times while Redis is away.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      redis = startRedis(port, dir);
      await readyWhen(app, (h) => h.status === 200, 'readiness once Redis is back', 15_000);

      const text = output.text();
      expect(text).not.toContain('Unhandled error event');
      expect(text).not.toContain(REDIS_PASSWORD);
      expect(text.match(/Redis unreachable/g) ?? []).toHaveLength(1); // once per outage
      expect(text).toContain('Redis reachable again');
    });

    it('counts a Redis that hangs (connection up, no answers) as unreachable too', async () => {
      await readyWhen(app, (h) => h.status === 200, 'readiness before the pause', 15_000);
      redis!.kill('SIGSTOP');
      try {
        const down = await readyWhen(
          app,
          (h) => h.status === 503 && /Redis/.test(h.reason ?? ''),
          'readiness to name a hung Redis',
          8_000,
        );
        expect(down.reason).toMatch(/no answer to PING/);
        expect((await health(app, 'live')).status).toBe(200);
      } finally {
        redis!.kill('SIGCONT');
      }
      await readyWhen(app, (h) => h.status === 200, 'readiness once Redis answers', 15_000);
      expect(output.text().match(/Redis unreachable/g) ?? []).toHaveLength(2);
    });
  });

  describe('a topic that does not exist with KAFKA_CREATE_TOPICS=false', () => {
    let sandbox: SandboxServer;
    beforeAll(async () => {
      sandbox = new SandboxServer({ relayAccessToken: RELAY_KEY, apiKey: API_KEY });
      await sandbox.listen(0);
    });
    afterAll(() => sandbox.close());

    it('stops start-up naming each missing topic and its variable, and creates none', async () => {
      // The suite's broker creates topics on demand (auto.create.topics.enable=true, Kafka's default).
      const topics = uniqueTopics();
      const { TOPIC_ORDER_PLACED: missingIn, TOPIC_DEAD_LETTER: missingOut, ...present } = topics;
      const groupId = uniqueName('mailbridge');
      const kafka = testKafka();
      await createTopics(kafka, Object.values(present), 1, [groupId]);

      const env = serviceEnv(sandbox.url, topics, groupId, { KAFKA_CREATE_TOPICS: 'false' });
      const start = startApp(loadConfig(env));
      await expect(start).rejects.toThrow(`TOPIC_ORDER_PLACED=${missingIn}`);
      await expect(start).rejects.toThrow(`TOPIC_DEAD_LETTER=${missingOut}`);
      await expect(start).rejects.toThrow(/KAFKA_CREATE_TOPICS=true/);

      const admin = kafka.admin();
      await admin.connect();
      try {
        const existing = await admin.listTopics();
        expect(existing).not.toContain(missingIn);
        expect(existing).not.toContain(missingOut);
        expect(existing).toEqual(expect.arrayContaining(Object.values(present)));
      } finally {
        await admin.disconnect();
      }
    });
  });

  describe('the broker stopped while the service runs', () => {
    let broker: PrivateBroker;
    let sandbox: SandboxServer;
    let app: INestApplication | undefined;

    beforeAll(async () => {
      broker = await PrivateBroker.start();
      sandbox = new SandboxServer({ relayAccessToken: RELAY_KEY, apiKey: API_KEY });
      await sandbox.listen(0);
    });
    afterAll(async () => {
      await app?.close();
      await sandbox?.close();
      await broker?.destroy();
    });

    it('turns readiness 503 naming the broker, keeps liveness, and is ready again after a restart', async () => {
      const topics = uniqueTopics();
      const groupId = uniqueName('mailbridge');
      await createTopics(broker.kafka(), Object.values(topics), 1, [groupId]);
      const env = serviceEnv(sandbox.url, topics, groupId, {
        KAFKA_BROKERS: broker.address,
        IDEMPOTENCY_STORE: 'memory',
      });
      app = await startApp(loadConfig(env));
      await readyWhen(app, (h) => h.status === 200, 'readiness with the broker up', 30_000);

      await broker.stop();
      const down = await readyWhen(
        app,
        (h) => h.status === 503 && /broker/.test(h.reason ?? ''),
        'readiness to name the broker',
        10_000,
      );
      expect(down.reason).toContain(broker.address);
      expect((await health(app, 'live')).status).toBe(200);

      await broker.restart();
      await readyWhen(app, (h) => h.status === 200, 'readiness after the broker restart', 90_000);
    });
  });
});
