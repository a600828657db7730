import { randomUUID } from 'node:crypto';
import type { StoredOutcome } from '../src/dispatch/idempotency/idempotency.store';
import { RedisIdempotencyStore } from '../src/dispatch/idempotency/redis-idempotency.store';

describe('RedisIdempotencyStore on the real Redis', () => {
  let now = Date.now();
  const store = new RedisIdempotencyStore(
    'redis://127.0.0.1:6379',
    60,
    `mailbridge-test:${randomUUID()}:`,
    () => now,
  );
  const created: StoredOutcome = {
    status: 'created',
    listId: '6f1f0ef8-6a43-4c55-9d25-0c0f8d1ba1aa',
    name: 'l',
    memberCount: 2,
  };

  beforeAll(() => store.connect());
  afterAll(() => store.close());

  it('claims atomically: of many concurrent owners exactly one wins', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => store.claim('race:welcome', `owner-${i}`, 10_000)),
    );
    expect(results.filter((r) => r.kind === 'claimed')).toHaveLength(1);
    expect(results.filter((r) => r.kind === 'busy')).toHaveLength(19);
  });

  it('answers a finished key with its stored outcome', async () => {
    await store.claim('done:list', 'a', 10_000);
    await store.complete('done:list', created);
    expect(await store.claim('done:list', 'b', 10_000)).toEqual({ kind: 'done', outcome: created });
  });

  it('reports an abandoned claim when taking it over, and lets its owner release it', async () => {
    await store.claim('abandoned:welcome', 'a', 1_000);
    now += 1_001;
    expect(await store.claim('abandoned:welcome', 'b', 1_000)).toEqual({ kind: 'reclaimed' });
    await store.release('abandoned:welcome', 'a'); // not a's any more: no effect
    expect(await store.claim('abandoned:welcome', 'c', 1_000)).toEqual({ kind: 'busy' });
    await store.release('abandoned:welcome', 'b');
    expect(await store.claim('abandoned:welcome', 'c', 1_000)).toEqual({ kind: 'claimed' });
  });
});
