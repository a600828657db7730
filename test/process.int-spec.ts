import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { SandboxServer } from '../src/sandbox/sandbox.server';
import { createTopics, testBrokers, testKafka, uniqueName, waitFor } from './support/kafka-helpers';

jest.setTimeout(90_000);

const MAIN = join(__dirname, '../dist/main.js');

/** Runs the built service as a real process with exactly the given environment. */
function startService(env: Record<string, string>): {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
} {
  let output = '';
  const child = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...env },
  });
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  return { child, output: () => output, exited };
}

describe('the service process', () => {
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

  it('stops on SIGTERM: leaves its group, disconnects and exits 0', async () => {
    const sandbox = new SandboxServer({ relayAccessToken: 'relay', apiKey: 'api' });
    const url = await sandbox.listen(0);
    const topic = uniqueName('user.signed_up.v1');
    await createTopics(testKafka(), [topic]);
    const port = String(20_000 + Math.floor(Math.random() * 20_000));
    const service = startService({
      MAILBRIDGE_MODE: 'production',
      KAFKA_BROKERS: testBrokers().join(','),
      KAFKA_GROUP_ID: uniqueName('mailbridge'),
      KAFKA_CREATE_TOPICS: 'true',
      TOPIC_USER_SIGNED_UP: topic,
      TOPIC_CAMPAIGN_SENT: uniqueName('sent'),
      TOPIC_DISPATCH_FAILED: uniqueName('failed'),
      TOPIC_DEAD_LETTER: uniqueName('dlq'),
      VENDOR_RELAY_BASE_URL: `${url}/relay/v1`,
      VENDOR_BASE_URL: `${url}/v1`,
      VENDOR_RELAY_ACCESS_TOKEN: 'relay',
      VENDOR_API_KEY: 'api',
      SENDER_FROM_EMAIL: 'hello@shop.example',
      HTTP_PORT: port,
    });
    try {
      await waitFor(
        async () => {
          const response = await fetch(`http://127.0.0.1:${port}/health/ready`).catch(
            () => undefined,
          );
          return response?.status === 200 ? true : undefined;
        },
        { what: 'readiness', intervalMs: 200 },
      );
      service.child.kill('SIGTERM');
      expect(await service.exited).toBe(0);
      expect(service.output()).toContain('consumer stopped');
      expect(service.output()).toContain('producer disconnected');
    } finally {
      service.child.kill('SIGKILL');
      await sandbox.close();
    }
  });
});
