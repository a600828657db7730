import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { RedisWindowStore } from '../src/windows/redis-window.store';
import { waitFor } from './support/kafka-helpers';
import { windowEntry } from './support/window-entries';
import { monitorRedis } from './support/redis-monitor';
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

  it('sends the orders of one turn to Redis as one script call', async () => {
    const { redis, prefix, store, forget } = storeOnRedis(1_000);
    const calls = jest.spyOn(redis, 'mailbridgeWindowAdd');
    const w = { name: 'new-customers-turn', end: Date.now() + 60_000 };
    const placed = await Promise.all(
      Array.from({ length: 50 }, (_, n) => store.add(windowEntry(w, n))),
    );
    expect(placed.every((p) => p.status === 'added' && p.list === w.name)).toBe(true);
    expect(calls).toHaveBeenCalledTimes(1);
    // The next turn's order is a call of its own.
    expect(await store.add(windowEntry(w, 0))).toEqual({ status: 'duplicate', list: w.name });
    expect(calls).toHaveBeenCalledTimes(2);
    expect(await redis.hlen(`${prefix}win:m:${w.name}`)).toBe(50);
    await forget(w.name);
  });

  /** Each command Redis ran on a key of `prefix` while `work` ran, in order, as the scripts ran. */
  const commandsWhile = async (prefix: string, work: () => Promise<unknown>) => {
    const ran: Array<{ command: string; key: string }> = [];
    const done = `${prefix}done`;
    let seenDone = false;
    const monitor = await monitorRedis((args) => {
      const [command, key] = [String(args[0]).toLowerCase(), String(args[1])];
      if (key.startsWith(prefix)) ran.push({ command, key: key.slice(prefix.length) });
      if (command === 'exists' && key === done) seenDone = true;
    });
    try {
      await work();
      // The monitor's feed lags behind the replies: a marker command closes it.
      await connect().exists(done);
      await waitFor(() => (seenDone ? true : undefined), { timeoutMs: 5_000, what: 'the marker' });
    } finally {
      monitor.stop();
    }
    return ran.filter(({ key }) => key !== 'done');
  };
  /** The keys of `prefix` whose expiry each Redis PTTL asked while `work` ran. */
  const pttlsWhile = async (prefix: string, work: () => Promise<unknown>) =>
    (await commandsWhile(prefix, work)).filter((c) => c.command === 'pttl').map((c) => c.key);

  it('reads a window and its list once per turn: per order, one read and three writes', async () => {
    const { store, prefix, forget } = storeOnRedis(1_000);
    const w = { name: 'new-customers-reads', end: Date.now() + 60_000 };
    await store.add(windowEntry(w, 0));
    // 50 orders in one turn, the last with the address of the first: 49 new members.
    const turn = Array.from({ length: 50 }, (_, n) => windowEntry(w, n + 1));
    turn[49] = { ...turn[49], address: turn[0].address, member: turn[0].member };
    const ran = await commandsWhile(prefix, () => Promise.all(turn.map((e) => store.add(e))));
    const tally: Record<string, number> = {};
    // Whether an expiry moves (PEXPIREAT) depends on the milliseconds between the two turns.
    for (const { command } of ran.filter((c) => !['evalsha', 'pexpireat'].includes(c.command))) {
      tally[command] = (tally[command] ?? 0) + 1;
    }
    expect(tally).toEqual({
      hget: 50 + 1, // each order's reference; the window's current list once
      hmget: 1, // the list's state, once
      hlen: 1, // its members, once
      hset: 3 * 50, // each order's member, its result and its list
      hincrby: 1, // the open members' count, once
      pttl: 5, // each key's expiry, once (all five are kept already)
    });
    expect(await store.openCounts()).toEqual({ lists: 1, members: 50 });
    await forget(w.name);
  });

  it('asks Redis for each key’s expiry once per turn, not once per order', async () => {
    const { redis, prefix, store, forget } = storeOnRedis(1_000);
    const w = { name: 'new-customers-keep', end: Date.now() + 60_000 };
    // The orders' present window is the next one, which no order has gone to: it has no keys.
    const present = { name: 'new-customers-keep-next', end: w.end + 60_000 };
    const asked = await pttlsWhile(prefix, () =>
      Promise.all(
        Array.from({ length: 50 }, (_, n) => store.add({ ...windowEntry(w, n), present })),
      ),
    );
    // The list's state, members and orders; the window's lists and orders: five keys, once each;
    // never the present window's, which no order went to.
    expect([...asked].sort()).toEqual(
      ['win:l:', 'win:m:', 'win:o:', 'win:r:', 'win:w:'].map((k) => `${k}${w.name}`),
    );
    expect(await redis.exists(`${prefix}win:w:${present.name}`)).toBe(0);
    await forget(w.name);
  });

  it('still sets the expiry of a key an order creates after an earlier one of its turn asked for it', async () => {
    const redis = connect();
    const prefix = `mailbridge-test:${randomUUID()}:`;
    let now = Date.now();
    const store = new RedisWindowStore(
      redis,
      prefix,
      { lingerMs: 1_000, maxMembers: 10, latePolicy: 'next-window', retentionSeconds: 60 },
      () => now,
    );
    const closed = { name: `closed-${now}`, end: now + 1_000 };
    await store.add({ ...windowEntry(closed, 1), present: closed });
    now += 3_000;
    expect((await store.take('a', 60_000))?.name).toBe(closed.name);
    // The present window has no keys yet. In one turn, the first order (of another window)
    // leaves it alone; the second, late for the taken list, creates it, and its keys expire.
    const present = { name: `present-${now}`, end: now + 60_000 };
    const other = { name: `other-${now}`, end: present.end };
    const placed = await Promise.all([
      store.add({ ...windowEntry(other, 2), present }),
      store.add({ ...windowEntry(closed, 3), present }),
    ]);
    expect(placed).toEqual([
      { status: 'added', list: other.name },
      { status: 'next-window', list: present.name },
    ]);
    for (const key of ['win:w:', 'win:l:', 'win:m:', 'win:r:']) {
      expect(await redis.pttl(`${prefix}${key}${present.name}`)).toBeGreaterThan(0);
    }
  });

  it('sets the expiry of a day-long window from its close, not from its start', async () => {
    const { redis, prefix, store, forget } = storeOnRedis(10);
    const day = { name: 'new-customers-day', end: Date.now() + 86_400_000 };
    await store.add(windowEntry(day, 1));
    for (const key of ['win:l:', 'win:m:', 'win:r:', 'win:o:']) {
      expect(await redis.pttl(`${prefix}${key}${day.name}`)).toBeGreaterThan(86_400_000 + 50_000);
    }
    await forget(day.name);
  });
});
