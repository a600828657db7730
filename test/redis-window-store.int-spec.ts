import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { RedisWindowStore } from '../src/cluster/redis-window.store';
import { windowStoreContract } from './support/window-store.contract';

describe('RedisWindowStore on the real Redis', () => {
  const connections: Redis[] = [];
  afterAll(async () => {
    for (const redis of connections) await redis.quit();
  });
  const connect = () => {
    const redis = new Redis('redis://127.0.0.1:6379');
    connections.push(redis);
    return redis;
  };

  windowStoreContract((options, now) =>
    Promise.resolve(
      new RedisWindowStore(connect(), `mailbridge-test:${randomUUID()}:`, options, now),
    ),
  );

  it('sets the expiry of a day-long window from its close, not from its start', async () => {
    const redis = connect();
    const prefix = `mailbridge-test:${randomUUID()}:`;
    const store = new RedisWindowStore(redis, prefix, {
      lingerMs: 1_000,
      maxMembers: 10,
      latePolicy: 'follow-up',
      retentionSeconds: 60,
    });
    const day = { name: 'new-customers-day', end: Date.now() + 86_400_000 };
    await store.add({
      window: day,
      present: day,
      order: {
        ref: 'o1:t',
        eventId: 'o1',
        eventType: 'order.placed.v1',
        template: 't',
        key: null,
        headers: {},
      },
      address: 'a@example.com',
      member: { email: 'a@example.com' },
    });
    for (const key of ['win:l:', 'win:m:', 'win:r:', 'win:o:']) {
      expect(await redis.pttl(`${prefix}${key}${day.name}`)).toBeGreaterThan(86_400_000 + 50_000);
    }
    await redis.del(
      ...['win:l:', 'win:m:', 'win:r:', 'win:o:', 'win:w:'].map((k) => `${prefix}${k}${day.name}`),
      `${prefix}win:due`,
      `${prefix}win:open`,
    );
  });
});
