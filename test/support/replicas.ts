import { freePort } from './free-port';
import { waitFor } from './kafka-helpers';
import type { PipelineFixture } from './service-harness';
import { startService, terminate, type Service } from './service-process';

/** One replica: the built service as its own process, with its own HTTP port. */
export interface Replica {
  name: string;
  port: number;
  service: Service;
}

/** What `GET /health/ready` answered: its status code and body. */
export interface Readiness {
  status: number;
  body: string;
}

/**
 * Several replicas of the service in one consumer group, as a cluster runs them: real processes
 * (so that `kill -9` is real) sharing the fixture's broker, Redis namespace and sandbox. Every
 * process started here is stopped by `stopAll`, by PID.
 */
export class Replicas {
  private readonly running = new Map<string, Replica>();

  constructor(
    private readonly fixture: PipelineFixture,
    private readonly settings: Record<string, string> = {},
  ) {}

  get all(): Replica[] {
    return [...this.running.values()];
  }

  /** Starts replicas `r1` … `rN`. */
  async start(count: number): Promise<Replica[]> {
    const started: Replica[] = [];
    for (let i = 1; i <= count; i++) started.push(await this.startOne(`r${i}`));
    return started;
  }

  /**
   * Starts `r1` … `rN` and waits until every one answers ready (joined its group, Redis and the
   * broker reachable). The wait is generous: replicas start slowly on a loaded machine.
   */
  async startReady(count: number, timeoutMs = 180_000): Promise<Replica[]> {
    const started = await this.start(count);
    await waitFor(
      async () => {
        const states = await Promise.all(started.map((r) => this.readiness(r)));
        return states.every((s) => s.status === 200) || undefined;
      },
      { timeoutMs, what: `${count} ready replicas` },
    );
    return started;
  }

  /** Starts (or starts again) the replica called `name`. */
  async startOne(name: string, extra: Record<string, string> = {}): Promise<Replica> {
    const port = await freePort();
    const service = startService(
      this.fixture.env({ ...this.settings, ...extra, HTTP_PORT: String(port) }),
    );
    const replica = { name, port, service };
    this.running.set(name, replica);
    return replica;
  }

  /** SIGTERM to one replica: its exit code (undefined if it did not exit in 30 s) and how long it took. */
  async stop(name: string): Promise<{ code: number | null | undefined; ms: number }> {
    const replica = this.running.get(name);
    if (!replica) throw new Error(`no running replica ${name}`);
    this.running.delete(name);
    const stopped = await terminate(replica.service);
    if (stopped.code === undefined) {
      replica.service.child.kill('SIGKILL');
      await replica.service.exited;
    }
    return stopped;
  }

  /** `kill -9`: no shutdown hook runs, nothing is flushed, claims and leases stay behind. */
  async kill9(name: string): Promise<void> {
    const replica = this.running.get(name);
    if (!replica) throw new Error(`no running replica ${name}`);
    this.running.delete(name);
    replica.service.child.kill('SIGKILL');
    await replica.service.exited;
  }

  /** Writes each running replica's last log lines to stderr: what a failed wait shows. */
  printTails(lines = 40): void {
    for (const replica of this.all) {
      const tail = replica.service.output().split('\n').slice(-lines).join('\n');
      process.stderr.write(`--- ${replica.name}, last lines:\n${tail}\n`);
    }
  }

  async readiness(replica: Replica): Promise<Readiness> {
    try {
      const response = await fetch(`http://127.0.0.1:${replica.port}/health/ready`);
      return { status: response.status, body: await response.text() };
    } catch (error) {
      return { status: 0, body: (error as Error).message };
    }
  }

  /** SIGTERM to every replica still running; a replica that does not exit in 30 s is killed. */
  async stopAll(): Promise<void> {
    const replicas = this.all;
    this.running.clear();
    await Promise.all(
      replicas.map(async (replica) => {
        const { code } = await terminate(replica.service);
        if (code === undefined) {
          replica.service.child.kill('SIGKILL');
          await replica.service.exited;
        }
      }),
    );
  }
}
