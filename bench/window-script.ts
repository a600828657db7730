import { cpus, loadavg } from 'node:os';
import { Redis } from 'ioredis';
import { ORDERS_PER_TURN, windowAddCost } from './window/window-add-cost';
import { numberFlag } from './config/number-flag';
import { median } from './measure/percentiles';

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

async function main(): Promise<void> {
  const rounds = numberFlag('rounds', 5);
  const orders = numberFlag('orders', 100_000);
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  const load = loadavg()[0];
  try {
    await windowAddCost(redis, ORDERS_PER_TURN); // loads the script
    const results = [];
    for (let r = 0; r < rounds; r++) results.push(await windowAddCost(redis, orders));
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
