import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '../..');

/** An `npm run <script> -- <args>` started as a user would, in a process group of its own. */
export class NpmRun {
  readonly child: ChildProcess;
  private out = '';
  private err = '';
  readonly exited: Promise<number | null>;
  /**
   * Once the process has exited and its stdout and stderr are read to their end: Node may emit
   * `exit` while the last output is still in the pipe, so a line printed just before exiting
   * could be missing at `exit` (a publisher's last `published …` line was, once, on a loaded host).
   */
  private readonly closed: Promise<number | null>;

  constructor(script: string, args: string[]) {
    this.child = spawn('npm', ['run', script, '--', ...args], {
      cwd: ROOT,
      detached: true,
      env: { ...process.env, NO_COLOR: '1' },
    });
    this.child.stdout?.on('data', (chunk: Buffer) => (this.out += chunk.toString()));
    this.child.stderr?.on('data', (chunk: Buffer) => (this.err += chunk.toString()));
    this.exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.closed = new Promise((resolve) => this.child.once('close', resolve));
  }

  stdout(): string {
    return this.out;
  }

  stderr(): string {
    return this.err;
  }

  /** Lines of stdout that start with `prefix`. */
  lines(prefix: string): string[] {
    return this.out.split('\n').filter((line) => line.startsWith(prefix));
  }

  /** Waits for the script to end and its output to be read; its exit code (output if it failed). */
  async finished(): Promise<number | null> {
    const code = await this.closed;
    if (code !== 0) process.stderr.write(`${this.out}\n${this.err}\n`);
    return code;
  }

  /** SIGTERM to npm (which passes it on), then, whatever is left of the group, SIGKILL. */
  async stop(): Promise<number | null> {
    if (this.child.exitCode !== null) return this.child.exitCode;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.kill(), 15_000);
    const code = await this.exited;
    clearTimeout(timer);
    return code;
  }

  /** Ctrl-C: SIGINT to the whole process group, as a terminal sends it to its foreground job. */
  async interrupt(): Promise<number | null> {
    process.kill(-this.child.pid!, 'SIGINT');
    const timer = setTimeout(() => this.kill(), 15_000);
    const code = await this.exited;
    clearTimeout(timer);
    return code;
  }

  /** Whether any process of the group this run started is still there. */
  groupAlive(): boolean {
    try {
      process.kill(-this.child.pid!, 0);
      return true;
    } catch {
      return false;
    }
  }

  /** Every process of the group this run started, at once. */
  kill(): void {
    try {
      process.kill(-this.child.pid!, 'SIGKILL');
    } catch {
      // The group has already gone.
    }
  }
}

/** The events `npm run example:publish` reported: `published <type> <id> (<mode>, key <key>) to <topic>`. */
export function publishedEvents(
  run: NpmRun,
): Array<{ type: string; id: string; mode: string; key: string; topic: string }> {
  return run.lines('published ').map((line) => {
    const m = /^published (\S+) (\S+) \((\w+), key (.+)\) to (\S+)$/.exec(line);
    if (!m) throw new Error(`unexpected line: ${line}`);
    return { type: m[1], id: m[2], mode: m[3], key: m[4], topic: m[5] };
  });
}
