import { Redis } from 'ioredis';
import { windowAddCost } from '../../bench/window/window-add-cost';

// `npm run bench:window` on the real Redis: it measures the add script and cleans up after
// itself. Other suites share this Redis, so its command count here is only a lower bound.
describe('the window add script benchmark', () => {
  const redis = new Redis('redis://127.0.0.1:6379');
  afterAll(() => redis.quit());

  it('reports the script time and commands per order, and leaves no key behind', async () => {
    await windowAddCost(redis, 500); // loads the script, as the benchmark's first round does
    const cost = await windowAddCost(redis, 2_000);
    expect(cost.usec).toBeGreaterThan(0);
    expect(Number.isFinite(cost.usec)).toBe(true);
    // One read and three writes per order at least (see test/redis-window-store.int-spec.ts).
    expect(cost.commands).toBeGreaterThanOrEqual(4);
    expect(await redis.keys('mailbridge-bench-window:*')).toEqual([]);
  });
});
