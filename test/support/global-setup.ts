import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * Starts a throw-away single-node Kafka broker for the integration tests, unless KAFKA_BROKERS
 * already names one. The broker gets its own port and data dir, so it never collides with a
 * broker started by `npm run local`; the workers inherit KAFKA_BROKERS from here.
 */
export default function globalSetup(): void {
  if (process.env.KAFKA_BROKERS) return;
  const port = process.env.KAFKA_TEST_PORT ?? '19092';
  const started = Date.now();
  const out = execFileSync('bash', [join(__dirname, '../../scripts/kafka/kafka.sh'), 'start'], {
    env: { ...process.env, KAFKA_PORT: port },
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
  });
  process.env.KAFKA_BROKERS = out.trim().split('\n').pop();
  process.env.MAILBRIDGE_TEST_BROKER_STARTED = port;
  process.stderr.write(
    `\n[test] Kafka broker ${process.env.KAFKA_BROKERS} up in ${Date.now() - started} ms\n`,
  );
}
