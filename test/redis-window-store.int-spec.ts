import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { RedisWindowStore } from '../src/cluster/redis-window.store';
import type { ListWindow, WindowEntry } from '../src/cluster/window.store';
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

  /** A store of its own prefix on its own connection, on the real clock. */
  const storeOnRedis = (maxMembers: number) => {
    const redis = connect();
    const prefix = `mailbridge-test:${randomUUID()}:`;
    const store = new RedisWindowStore(redis, prefix, {
      lingerMs: 1_000,
      maxMembers,
      latePolicy: 'follow-up',
      retentionSeconds: 60,
    });
    /** Deletes every key of the window `name` (a window holding one list of its name). */
    const forget = (name: string) =>
      redis.del(
        ...['win:l:', 'win:m:', 'win:r:', 'win:o:', 'win:w:'].map((k) => `${prefix}${k}${name}`),
        `${prefix}win:due`,
        `${prefix}win:open`,
      );
    return { redis, prefix, store, forget };
  };
  const order = (w: ListWindow, n: number): WindowEntry => ({
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

  it('sends the orders of one turn to Redis as one script call', async () => {
    const { redis, prefix, store, forget } = storeOnRedis(1_000);
    const calls = jest.spyOn(redis, 'mailbridgeWindowAdd');
    const w = { name: 'new-customers-turn', end: Date.now() + 60_000 };
    const placed = await Promise.all(Array.from({ length: 50 }, (_, n) => store.add(order(w, n))));
    expect(placed.every((p) => p.status === 'added' && p.list === w.name)).toBe(true);
    expect(calls).toHaveBeenCalledTimes(1);
    // The next turn's order is a call of its own.
    expect(await store.add(order(w, 0))).toEqual({ status: 'duplicate', list: w.name });
    expect(calls).toHaveBeenCalledTimes(2);
    expect(await redis.hlen(`${prefix}win:m:${w.name}`)).toBe(50);
    await forget(w.name);
  });

  it('sets the expiry of a day-long window from its close, not from its start', async () => {
    const { redis, prefix, store, forget } = storeOnRedis(10);
    const day = { name: 'new-customers-day', end: Date.now() + 86_400_000 };
    await store.add(order(day, 1));
    for (const key of ['win:l:', 'win:m:', 'win:r:', 'win:o:']) {
      expect(await redis.pttl(`${prefix}${key}${day.name}`)).toBeGreaterThan(86_400_000 + 50_000);
    }
    await forget(day.name);
  });
});
