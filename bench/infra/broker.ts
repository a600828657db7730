import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from './repo-root';

const run = promisify(execFile);

/** The bench's own broker: its port and data dir never collide with a developer's or the tests'. */
export const BENCH_KAFKA_PORT = '39092';

export interface Broker {
  brokers: string[];
  /** True when this run started the broker and must stop it. */
  owned: boolean;
  stop(): Promise<void>;
}

/** Uses the brokers given, or starts a fresh single-node broker with `scripts/kafka/kafka.sh`. */
export async function startBroker(given: string | undefined): Promise<Broker> {
  if (given) return { brokers: given.split(','), owned: false, stop: () => Promise.resolve() };
  const root = repoRoot();
  const env = {
    ...process.env,
    KAFKA_PORT: BENCH_KAFKA_PORT,
    KAFKA_DIR: join(root, '.cache/kafka/bench'),
    KAFKA_HEAP: process.env.KAFKA_HEAP ?? '1g',
  };
  const script = join(root, 'scripts/kafka/kafka.sh');
  const { stdout } = await run('bash', [script, 'start'], { env, maxBuffer: 1 << 20 });
  const address = stdout.trim().split('\n').pop() ?? `127.0.0.1:${BENCH_KAFKA_PORT}`;
  return {
    brokers: [address],
    owned: true,
    stop: async () => {
      await run('bash', [script, 'stop'], { env });
    },
  };
}
