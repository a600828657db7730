import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from './repo-root';

const run = promisify(execFile);

/**
 * The bench's own broker: its port and data dir never collide with a developer's or the tests'.
 * `--kafka-port` picks another port, for two runs on one machine (each checkout has its own dir).
 */
export const BENCH_KAFKA_PORT = '39092';

export interface Broker {
  brokers: string[];
  /** True when this run started the broker and must stop it. */
  owned: boolean;
  /** The broker's process, when this run started it (for its CPU time). */
  pid?: number;
  stop(): Promise<void>;
}

/** Uses the brokers given, or starts a fresh single-node broker with `scripts/kafka/kafka.sh`. */
export async function startBroker(
  given: string | undefined,
  port = BENCH_KAFKA_PORT,
): Promise<Broker> {
  if (given) return { brokers: given.split(','), owned: false, stop: () => Promise.resolve() };
  const root = repoRoot();
  const env = {
    ...process.env,
    KAFKA_PORT: port,
    KAFKA_DIR: join(root, '.cache/kafka/bench'),
    KAFKA_HEAP: process.env.KAFKA_HEAP ?? '1g',
  };
  const script = join(root, 'scripts/kafka/kafka.sh');
  const { stdout } = await run('bash', [script, 'start'], { env, maxBuffer: 1 << 20 });
  const address = stdout.trim().split('\n').pop() ?? `127.0.0.1:${port}`;
  return {
    brokers: [address],
    owned: true,
    pid: pidIn(join(env.KAFKA_DIR, 'broker.pid')),
    stop: async () => {
      await run('bash', [script, 'stop'], { env });
    },
  };
}

/** The pid `kafka.sh` wrote; none if it cannot be read (the broker's CPU then goes unmeasured). */
function pidIn(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}
