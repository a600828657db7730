import { Redis } from 'ioredis';
import { paceOf } from '../../src/cluster/budget.store';
import { RedisBudgetStore } from '../../src/cluster/redis-budget.store';
import { budgetKey } from '../../src/cluster/request-budget.provider';
import { budgetStoreContract } from '../support/budget-store.contract';
import { uniqueName } from '../support/kafka-helpers';

describe(RedisBudgetStore.name, () => {
  const redis = new Redis('redis://127.0.0.1:6379', { lazyConnect: true });
  const prefix = `${uniqueName('mailbridge-test')}:`;

  beforeAll(() => redis.connect());
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  describe('with a time the test passes in', () => {
    budgetStoreContract(() => Promise.resolve(new RedisBudgetStore(redis)), prefix);
  });

  it("keeps Redis's own time when none is passed in", async () => {
    const store = new RedisBudgetStore(redis);
    const key = `${prefix}budget:contacts:own-clock`;
    const pace = paceOf({ count: 1, periodMs: 3_600_000 }, 1, 0); // one an hour
    expect(await store.take(key, pace)).toBe(0);
    const wait = await store.take(key, pace);
    // About an hour from Redis's now (the key expires with it).
    expect(wait).toBeGreaterThan(3_500_000);
    expect(wait).toBeLessThanOrEqual(3_600_000);
    const ttl = await redis.pttl(key);
    expect(ttl).toBeGreaterThan(3_500_000);
  });

  it('names the endpoint and a short hash of the key, never the key', () => {
    const key = budgetKey(prefix, 'contacts', 'contacts-key-for-tests');
    expect(key).toMatch(new RegExp(`^${prefix}budget:contacts:[0-9a-f]{16}$`));
    expect(key).not.toContain('contacts-key-for-tests');
    expect(budgetKey(prefix, 'contacts', 'contacts-key-for-tests')).toBe(key);
    expect(budgetKey(prefix, 'contacts', 'another-key')).not.toBe(key);
    expect(budgetKey(prefix, 'relay', 'contacts-key-for-tests')).not.toBe(key);
  });
});
