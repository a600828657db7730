import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from '../../bench/infra/repo-root';

const run = promisify(execFile);

/**
 * The chaos run's own broker, through `scripts/kafka/kafka.sh`: its own port and data dir, so it
 * never touches a developer's, the tests' or the benchmark's broker. `restart` keeps the data
 * dir, as a broker restart in production would; only `start` formats.
 */
export class ChaosBroker {
  readonly dir: string;
  private readonly script = join(repoRoot(), 'scripts/kafka/kafka.sh');
  private readonly env: NodeJS.ProcessEnv;
  /** Broker operations never overlap: a restart asked for during another waits for it. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(readonly port: number) {
    this.dir = join(repoRoot(), '.cache/kafka', `chaos-${port}`);
    this.env = {
      ...process.env,
      KAFKA_PORT: String(port),
      KAFKA_DIR: this.dir,
      KAFKA_HEAP: process.env.KAFKA_HEAP ?? '1g',
    };
  }

  get brokers(): string[] {
    return [`127.0.0.1:${this.port}`];
  }

  /** Formats a fresh data dir and starts; returns how long it took. */
  start(): Promise<number> {
    return this.serial('start');
  }

  /** Stops the broker (SIGTERM, as an orchestrator would) and starts it on the same data. */
  restart(): Promise<number> {
    return this.serial('restart');
  }

  stop(): Promise<number> {
    return this.serial('stop');
  }

  /** The broker's process id, from the pid file kafka.sh keeps. */
  get pid(): number | undefined {
    const file = join(this.dir, 'broker.pid');
    return existsSync(file) ? Number(readFileSync(file, 'utf8').trim()) : undefined;
  }

  /** The broker's own log; the group coordinator writes every rebalance into it. */
  get logFile(): string {
    return join(this.dir, 'broker.log');
  }

  private serial(verb: 'start' | 'restart' | 'stop'): Promise<number> {
    const next = this.queue.then(async () => {
      const started = Date.now();
      await run('bash', [this.script, verb], { env: this.env, maxBuffer: 1 << 20 });
      return Date.now() - started;
    });
    this.queue = next.catch(() => undefined);
    return next;
  }
}
