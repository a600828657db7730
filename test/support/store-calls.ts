import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { luaScript } from '../../src/redis/lua';
import { monitorRedis } from './redis-monitor';

/** What the service asks Redis for around one vendor request, by the step that asks it. */
export type StoreStep =
  'claim' | 'markSending' | 'complete' | 'suppressionRead' | 'budget' | 'wait' | 'other';

const SRC = join(__dirname, '../../src');

/** The scripts the steps run, as the stores load them (`luaScript`), by their file. */
const SCRIPTS: Array<{ step: StoreStep; dir: string; name: string }> = [
  { step: 'claim', dir: 'idempotency', name: 'claim' },
  { step: 'markSending', dir: 'idempotency', name: 'mark-sending' },
  { step: 'complete', dir: 'idempotency', name: 'complete' },
  { step: 'budget', dir: 'cluster', name: 'budget' },
];

/**
 * Counts, per Redis node, the commands the service sends under one key prefix, from each node's
 * MONITOR feed: a script call by the script it runs (EVALSHA by its SHA, the EVAL a connection
 * sends first by the script's first line), the suppression list's HMGET, and WAIT (which names
 * no key: counted only where `countWaits`, a Redis nobody else uses). Commands a script runs
 * inside Redis are not the service's and are not counted.
 */
export class StoreCalls {
  private readonly counts = new Map<number, Map<StoreStep, number>>();
  private readonly stops: Array<() => void> = [];
  private readonly bySha = new Map<string, StoreStep>();
  private readonly byFirstLine = new Map<string, StoreStep>();

  private constructor(
    private readonly prefix: string,
    private readonly countWaits: boolean,
  ) {
    for (const { step, dir, name } of SCRIPTS) {
      const lua = luaScript(join(SRC, dir), name);
      this.bySha.set(createHash('sha1').update(lua).digest('hex'), step);
      const firstLine = readFileSync(join(SRC, dir, `${name}.lua`), 'utf8').split('\n')[0];
      this.byFirstLine.set(firstLine, step);
    }
  }

  /** Starts counting on every port given (each a Redis node), from the moment it resolves. */
  static async start(
    ports: readonly number[],
    prefix: string,
    { password, countWaits = false }: { password?: string; countWaits?: boolean } = {},
  ): Promise<StoreCalls> {
    const calls = new StoreCalls(prefix, countWaits);
    for (const port of ports) {
      const counts = new Map<StoreStep, number>();
      calls.counts.set(port, counts);
      const monitor = await monitorRedis(
        (args, source) => {
          if (source.endsWith(' lua')) return;
          const step = calls.stepOf(args);
          if (step) counts.set(step, (counts.get(step) ?? 0) + 1);
        },
        port,
        '127.0.0.1',
        password,
      );
      calls.stops.push(() => monitor.stop());
    }
    return calls;
  }

  /** Calls of `step` on the node on `port`. */
  on(port: number, step: StoreStep): number {
    return this.counts.get(port)?.get(step) ?? 0;
  }

  /** Calls of `step` on every node together. */
  total(step: StoreStep): number {
    return [...this.counts.keys()].reduce((sum, port) => sum + this.on(port, step), 0);
  }

  stop(): void {
    for (const stop of this.stops) stop();
  }

  /** The step a command belongs to, if it is the service's under the prefix. */
  private stepOf([name, ...args]: string[]): StoreStep | undefined {
    switch (name?.toLowerCase()) {
      case 'evalsha':
      case 'eval': {
        // EVAL[SHA] <sha or script> <key count> <first key> …
        if (!args[2]?.startsWith(this.prefix)) return undefined;
        if (name.toLowerCase() === 'evalsha') return this.bySha.get(args[0]) ?? 'other';
        // MONITOR quotes a newline as \n: the script's first line follows `#!lua\n`.
        const firstLine = args[0].split('\\n')[1];
        return this.byFirstLine.get(firstLine) ?? 'other';
      }
      case 'hmget':
        return args[0] === `${this.prefix}suppression` ? 'suppressionRead' : undefined;
      case 'wait':
        return this.countWaits ? 'wait' : undefined;
      default:
        return args[0]?.startsWith(this.prefix) ? 'other' : undefined;
    }
  }
}
