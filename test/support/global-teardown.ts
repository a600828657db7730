import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/** Stops the broker that global-setup started (none when KAFKA_BROKERS was given). */
export default function globalTeardown(): void {
  const port = process.env.MAILBRIDGE_TEST_BROKER_STARTED;
  if (!port) return;
  execFileSync('bash', [join(__dirname, '../../scripts/kafka/kafka.sh'), 'stop'], {
    env: { ...process.env, KAFKA_PORT: port },
    stdio: 'inherit',
  });
}
