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

  it('sends the orders of one turn to Redis as one script call', async () => {
    const redis = connect();
    const prefix = `mailbridge-test:${randomUUID()}:`;
    const store = new RedisWindowStore(redis, prefix, {
      lingerMs: 1_000,
      maxMembers: 1_000,
      latePolicy: 'follow-up',
      retentionSeconds: 60,
    });
    const calls = jest.spyOn(redis, 'mailbridgeWindowAdd');
    const w = { name: 'new-customers-turn', end: Date.now() + 60_000 };
    const order = (n: number) => ({
      window: w,
      present: w,
      order: {
        ref: `o${n}:t`,
        eventId: `o${n}`,
        eventType: 'order.placed.v1',
        template: 't',
        key: null,
        headers: {},
      },
      address: `buyer${n}@example.com`,
      member: { email: `buyer${n}@example.com` },
    });
    const placed = await Promise.all(Array.from({ length: 50 }, (_, n) => store.add(order(n))));
    expect(placed.every((p) => p.status === 'added' && p.list === w.name)).toBe(true);
    expect(calls).toHaveBeenCalledTimes(1);
    // The next turn's order is a call of its own.
    expect(await store.add(order(0))).toEqual({ status: 'duplicate', list: w.name });
    expect(calls).toHaveBeenCalledTimes(2);
    expect(await redis.hlen(`${prefix}win:m:${w.name}`)).toBe(50);
    await redis.del(
      ...['win:l:', 'win:m:', 'win:r:', 'win:o:', 'win:w:'].map((k) => `${prefix}${k}${w.name}`),
      `${prefix}win:due`,
      `${prefix}win:open`,
    );
  });

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
