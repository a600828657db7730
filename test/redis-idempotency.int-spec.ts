import { randomUUID } from 'node:crypto';
import { RedisIdempotencyStore } from '../src/idempotency/redis-idempotency.store';
import { idempotencyStoreContract } from './support/idempotency-store.contract';

describe('RedisIdempotencyStore on the real Redis', () => {
  idempotencyStoreContract(async (now) => {
    const store = new RedisIdempotencyStore(
      'redis://127.0.0.1:6379',
      60,
      `mailbridge-test:${randomUUID()}:`,
      now,
    );
    await store.connect();
    return store;
  });

  it('claims atomically: of many concurrent handlings exactly one wins', async () => {
    const store = new RedisIdempotencyStore(
      'redis://127.0.0.1:6379',
      60,
      `mailbridge-test:${randomUUID()}:`,
    );
    await store.connect();
    try {
      await store.heartbeat('i', 60_000);
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, n) =>
          store.claim('race:welcome', { instance: 'i', handling: `h${n}` }, 10_000),
        ),
      );
      expect(results.filter((r) => r.kind === 'claimed')).toHaveLength(1);
      expect(results.filter((r) => r.kind === 'busy')).toHaveLength(19);
    } finally {
      await store.close();
    }
  });
});
