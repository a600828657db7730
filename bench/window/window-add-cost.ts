import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { RedisWindowStore } from '../../src/windows/redis-window.store';
import type { ListWindow, WindowEntry } from '../../src/windows/window.store';

/**
 * What the contact-list windows' add script costs Redis per order, measured on the Redis it is
 * given: the project's `RedisWindowStore` adds orders in turns of {@link ORDERS_PER_TURN} to
 * 4 windows of lists of up to 1,000 members. The script's time is `evalsha`'s usec in `INFO
 * commandstats`, and the commands every client's calls, both read before and after: run it on
 * a Redis nothing else is busy with. `npm run bench:window` (bench/window-script.ts) reports it.
 */

/** Orders per add script call, as a fetched batch's orders go. */
export const ORDERS_PER_TURN = 500;
const WINDOWS = 4;

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

/**
 * One round: `orders` orders added under a prefix of their own, deleted afterwards; the script's
 * µs inside Redis and the commands Redis ran, per order. The first round also loads the script.
 */
export async function windowAddCost(
  redis: Redis,
  orders: number,
): Promise<{ usec: number; commands: number }> {
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
