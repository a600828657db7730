import { paceOf, type BudgetStore } from '../../src/cluster/budget.store';
import { busiestWindow } from './arrivals';
import { seededRandom } from './seeded-random';

/**
 * What every request-budget store promises, run against each of them with a time the test
 * controls (the Redis script's own clock is covered by its spec). `make` gives a fresh store.
 */
// eslint-disable-next-line jest/no-export -- a shared contract, run by the spec of each store
export function budgetStoreContract(
  make: () => Promise<BudgetStore>,
  prefix = 'budget-contract:',
): void {
  const t0 = 1_900_000_000_000;
  let store: BudgetStore;
  let keys = 0;
  const key = () => `${prefix}${process.pid}:${Date.now()}:${++keys}`;
  const perSecond = paceOf({ count: 60, periodMs: 60_000 }, 1, 0); // a token every 1 000 ms

  beforeAll(async () => {
    store = await make();
  });

  it('grants one token per interval and says how long until the next', async () => {
    const k = key();
    expect(await store.take(k, perSecond, t0)).toBe(0);
    expect(await store.take(k, perSecond, t0)).toBe(1_000);
    expect(await store.take(k, perSecond, t0 + 999)).toBe(1);
    expect(await store.take(k, perSecond, t0 + 1_000)).toBe(0);
    // A refusal spends nothing: the next token is still one interval on.
    expect(await store.take(k, perSecond, t0 + 1_500)).toBe(500);
    expect(await store.take(k, perSecond, t0 + 2_000)).toBe(0);
  });

  it('lets a burst go at once after a quiet spell, then keeps the slower steady pace', async () => {
    const k = key();
    const pace = paceOf({ count: 60, periodMs: 60_000 }, 5, 0); // 56 per minute once steady
    expect(pace.intervalMs).toBe(Math.ceil(60_000 / 56));
    for (let i = 0; i < 5; i++) expect(await store.take(k, pace, t0)).toBe(0);
    expect(await store.take(k, pace, t0)).toBe(pace.intervalMs);
    expect(await store.take(k, pace, t0 + pace.intervalMs)).toBe(0);
    expect(await store.take(k, pace, t0 + pace.intervalMs)).toBeGreaterThan(0);
  });

  it('holds every caller back until a shrink ends, and never shortens a hold', async () => {
    const k = key();
    expect(await store.take(k, perSecond, t0)).toBe(0);
    expect(await store.shrink(k, perSecond, 5_000, t0 + 10)).toBe(true);
    expect(await store.take(k, perSecond, t0 + 1_000)).toBe(4_010);
    // An earlier end does not pull the hold in; a later one pushes it out.
    expect(await store.shrink(k, perSecond, 1_000, t0 + 20)).toBe(false);
    expect(await store.take(k, perSecond, t0 + 5_000)).toBe(10);
    expect(await store.shrink(k, perSecond, 8_000, t0 + 30)).toBe(true);
    expect(await store.take(k, perSecond, t0 + 5_010)).toBe(3_020);
    // After the hold: one token, then the usual spacing.
    expect(await store.take(k, perSecond, t0 + 8_030)).toBe(0);
    expect(await store.take(k, perSecond, t0 + 8_030)).toBe(1_000);
  });

  it('grants no burst right after a hold', async () => {
    const k = key();
    const pace = paceOf({ count: 60, periodMs: 60_000 }, 5, 0);
    expect(await store.shrink(k, pace, 3_000, t0)).toBe(true);
    expect(await store.take(k, pace, t0 + 3_000)).toBe(0);
    expect(await store.take(k, pace, t0 + 3_000)).toBe(pace.intervalMs);
  });

  it('holds back an endpoint without a pace too, and only for the hold', async () => {
    const k = key();
    const none = paceOf(undefined, 1, 1_000);
    expect(await store.take(k, none, t0)).toBe(0);
    expect(await store.take(k, none, t0)).toBe(0);
    await store.shrink(k, none, 2_000, t0);
    expect(await store.take(k, none, t0 + 1_500)).toBe(500);
    expect(await store.take(k, none, t0 + 2_000)).toBe(0);
    expect(await store.take(k, none, t0 + 2_000)).toBe(0);
  });

  it('serves two callers in the order they ask once a token falls due', async () => {
    const k = key();
    expect(await store.take(k, perSecond, t0)).toBe(0); // a
    expect(await store.take(k, perSecond, t0 + 100)).toBe(900); // b is told when
    expect(await store.take(k, perSecond, t0 + 200)).toBe(800); // a is told the same moment
    expect(await store.take(k, perSecond, t0 + 1_003)).toBe(0); // b comes back first: b's
    expect(await store.take(k, perSecond, t0 + 1_007)).toBe(996); // a waits for the next
  });

  it.each([1, 10])(
    'never lets a sliding minute hold more than the budget, over twenty minutes (burst %i)',
    async (burst) => {
      const k = key();
      const margin = 1_000;
      const pace = paceOf({ count: 60, periodMs: 60_000 }, burst, margin);
      const random = seededRandom(burst);
      // Eight callers that ask again the moment they are told; after a grant, most ask again
      // at once and some go quiet for a while, so that bursts build up and are spent.
      const next = Array.from({ length: 8 }, (_, i) => t0 + i * 37);
      const arrivals: number[] = [];
      const end = t0 + 20 * 60_000;
      for (;;) {
        const caller = next.indexOf(Math.min(...next));
        const now = next[caller];
        if (now >= end) break;
        const wait = await store.take(k, pace, now);
        if (wait === 0) {
          // Between the token and the vendor, a request is delayed by up to the margin.
          arrivals.push(now + Math.floor(random() * margin));
          const quiet = random() < 0.03 ? 30_000 : 50;
          next[caller] = now + Math.floor(random() * quiet);
        } else {
          next[caller] = now + wait + Math.floor(random() * 25);
        }
      }
      expect(busiestWindow(arrivals, 60_000)).toBeLessThanOrEqual(60);
      // The budget is used, not merely kept: at least its steady pace of 61 - burst a minute.
      expect(arrivals.length).toBeGreaterThanOrEqual(20 * (61 - burst) * 0.9);
    },
  );
}
