import { randomUUID } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { Redis } from 'ioredis';
import { RedisWindowStore } from '../src/cluster/redis-window.store';
import type { ListWindow, WindowEntry } from '../src/cluster/window.store';

/**
 * `npm run bench:window`: what the contact-list windows' add script costs Redis per order. The
 * project's `RedisWindowStore` adds orders in turns of 500 (one script call each, as a fetched
 * batch's orders go) to 4 windows of lists of up to 1,000 members, on the Redis of `REDIS_URL`
 * (default the machine's), under a prefix of its own that it deletes after each round. Reported
 * per order, median of the rounds: the script's time inside Redis (`INFO commandstats`,
 * `evalsha`'s usec, read before and after) and the commands Redis ran for it (all clients'
 * calls: run it on a Redis nothing else is busy with). It asserts nothing.
 * Options: `--rounds N` (default 5), `--orders N` per round (default 100,000).
 */

const ORDERS_PER_TURN = 500;
const WINDOWS = 4;

function flag(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  const value = at >= 0 ? Number(process.argv[at + 1]) : fallback;
  if (!(value > 0)) throw new Error(`--${name} must be a positive number`);
  return value;
}

/** Every command's calls, and `evalsha`'s usec, from `INFO commandstats`. */
async function commandStats(redis: Redis): Promise<{ calls: number; scriptUsec: number }> {
  const info = await redis.info('commandstats');
  let calls = 0;
  for (const match of info.matchAll(/calls=(\d+)/g)) calls += Number(match[1]);
  const scriptUsec = Number(/cmdstat_evalsha:calls=\d+,usec=(\d+)/.exec(info)?.[1] ?? 0);
  return { calls, scriptUsec };
}

function entry(window: ListWindow, n: number): WindowEntry {
  const address = `buyer${n}@example.com`;
  return {
    window,
    present: window,
    order: {
      ref: `order-${n}:new-customers`,
      eventId: `order-${n}`,
      eventType: 'order.placed.v1',
      template: 'new-customers',
      key: `customer-${n}`,
      headers: { ce_id: `order-${n}`, 'content-type': 'application/json' },
    },
    address,
    member: { email: address, firstName: 'Ada', lastName: 'Lovelace' },
  };
}

/** One round: `orders` orders added, µs of script time and commands per order. */
async function round(redis: Redis, orders: number): Promise<{ usec: number; commands: number }> {
  const prefix = `mailbridge-bench-window:${randomUUID()}:`;
  const store = new RedisWindowStore(redis, prefix, {
    lingerMs: 100,
    maxMembers: 1_000,
    latePolicy: 'follow-up',
    retentionSeconds: 600,
  });
  const end = Date.now() + 600_000;
  const windows = Array.from({ length: WINDOWS }, (_, i) => ({ name: `window-${i}`, end }));
  const before = await commandStats(redis);
  for (let first = 0; first < orders; first += ORDERS_PER_TURN) {
    const turn: Array<Promise<unknown>> = [];
    for (let n = first; n < Math.min(first + ORDERS_PER_TURN, orders); n++) {
      turn.push(store.add(entry(windows[n % WINDOWS], n)));
    }
    await Promise.all(turn);
  }
  const after = await commandStats(redis);
  // The first INFO (counted once it ran) and the script calls themselves are not its commands.
  const commands = after.calls - before.calls - 1 - Math.ceil(orders / ORDERS_PER_TURN);
  for (let cursor = '0'; ;) {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1_000);
    if (keys.length > 0) await redis.unlink(...keys);
    if ((cursor = next) === '0') break;
  }
  return { usec: (after.scriptUsec - before.scriptUsec) / orders, commands: commands / orders };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function main(): Promise<void> {
  const rounds = flag('rounds', 5);
  const orders = flag('orders', 100_000);
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  const load = loadavg()[0];
  try {
    await round(redis, ORDERS_PER_TURN); // loads the script
    const results = [];
    for (let r = 0; r < rounds; r++) results.push(await round(redis, orders));
    const usec = results.map((r) => r.usec);
    console.log(
      '| orders per round | script µs in Redis per order (median; min–max) | commands per order |',
    );
    console.log('| ---: | ---: | ---: |');
    console.log(
      `| ${orders.toLocaleString('en')} | ${median(usec).toFixed(1)} ` +
        `(${Math.min(...usec).toFixed(1)}–${Math.max(...usec).toFixed(1)}) | ` +
        `${median(results.map((r) => r.commands)).toFixed(2)} |`,
    );
    const info = await redis.info('server');
    const version = /redis_version:(\S+)/.exec(info)?.[1] ?? 'unknown';
    const cpu = cpus()[0]?.model.trim() ?? 'unknown CPU';
    console.log(
      `\n${rounds} rounds; Redis ${version}, ${cpus().length} × ${cpu}, ` +
        `load average ${load.toFixed(2)} at the start.`,
    );
  } finally {
    await redis.quit();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
