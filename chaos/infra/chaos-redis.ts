import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { repoRoot } from '../../bench/infra/repo-root';
import { sleep } from '../../bench/infra/bench-kafka';

/**
 * The chaos run's own Redis, never the machine's (which keeps nothing on disk): its own port and
 * dir, append-only file fsynced on every write, so a kill -9 and a start on the same dir keep
 * every idempotency record the service was told was written.
 */
export class ChaosRedis {
  readonly dir: string;
  private child?: ChildProcess;
  private exited?: Promise<void>;
  /** Set by stop(): a restart under way must not bring Redis back after the harness stopped it. */
  private stopped = false;

  constructor(readonly port: number) {
    this.dir = join(repoRoot(), '.cache/chaos', `redis-${port}`);
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** A fresh, empty dir: a new chaos invocation starts from nothing. */
  async start(): Promise<void> {
    rmSync(this.dir, { recursive: true, force: true });
    mkdirSync(this.dir, { recursive: true });
    await this.launch();
  }

  /** kill -9, then start again on the same dir. Returns the key counts before and after. */
  async restart(downMs: number): Promise<{ keysBefore: number; keysAfter: number }> {
    const keysBefore = await this.dbsize().catch(() => -1);
    await this.kill('SIGKILL');
    await sleep(downMs);
    await this.launch();
    return { keysBefore, keysAfter: await this.dbsize() };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.kill('SIGTERM');
  }

  dbsize(): Promise<number> {
    return command(this.port, 'DBSIZE').then((reply) => Number(/^:(\d+)/.exec(reply)?.[1] ?? -1));
  }

  private async launch(): Promise<void> {
    if (this.stopped) throw new Error('Redis was stopped');
    const args = [
      '--port', String(this.port),
      '--bind', '127.0.0.1',
      '--dir', this.dir,
      '--appendonly', 'yes',
      '--appendfsync', 'always',
      '--save', '',
      '--daemonize', 'no',
      '--logfile', join(this.dir, 'redis.log'),
    ]; // prettier-ignore
    // Detached: a Ctrl-C aimed at the harness must not take Redis down before the harness stops it.
    const child = spawn('redis-server', args, { detached: true, stdio: 'ignore' });
    this.child = child;
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    const deadline = Date.now() + 20_000;
    for (;;) {
      const reply = await command(this.port, 'PING').catch(() => '');
      // LOADING while the append-only file is replayed: not ready yet.
      if (reply.startsWith('+PONG')) return;
      if (child.exitCode !== null) throw new Error(`redis-server exited (${child.exitCode})`);
      if (Date.now() > deadline) throw new Error('redis-server not answering after 20 s');
      await sleep(50);
    }
  }

  private async kill(signal: NodeJS.Signals): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    child.kill(signal);
    await this.exited;
  }
}

/** One inline command over RESP, enough for PING and DBSIZE without a client library. */
function command(port: number, name: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    const timer = setTimeout(() => socket.destroy(new Error('redis: no answer')), 2_000);
    let reply = '';
    socket.once('connect', () => socket.write(`${name}\r\n`));
    socket.on('data', (chunk) => {
      reply += chunk.toString('utf8');
      if (reply.endsWith('\r\n')) {
        clearTimeout(timer);
        socket.end();
        resolve(reply);
      }
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}
