import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { Redis } from 'ioredis';
import type { SharedClose } from '../../src/cluster/gate-channel';
import { RedisGateChannel } from '../../src/cluster/redis-gate-channel';
import { systemClock } from '../../src/delivery/clock';
import { VendorGate } from '../../src/delivery/vendor.gate';
import { freePort } from '../support/free-port';
import { waitFor } from '../support/kafka-helpers';

const URL = 'redis://127.0.0.1:6379';

describe('RedisGateChannel on the real Redis', () => {
  const prefix = `mailbridge-test:${randomUUID()}:`;
  const key = `${prefix}cluster:vendor-gate`;
  const connections: Redis[] = [];
  const channels: RedisGateChannel[] = [];
  let admin: Redis;

  /** A replica's channel on its own connection, subscribed, and what it heard. */
  async function replica(
    name: string,
  ): Promise<{ channel: RedisGateChannel; heard: SharedClose[] }> {
    const redis = new Redis(URL, { lazyConnect: true, maxRetriesPerRequest: null });
    connections.push(redis);
    await redis.connect();
    const channel = new RedisGateChannel(redis, prefix, `${name}-${randomUUID()}`);
    channels.push(channel);
    const heard: SharedClose[] = [];
    channel.listen((close) => heard.push(close));
    const before = await subscribers();
    channel.start();
    await waitFor(async () => ((await subscribers()) > before ? true : undefined), {
      what: `${name} to subscribe`,
    });
    return { channel, heard };
  }

  async function subscribers(): Promise<number> {
    const [, count] = (await admin.pubsub('NUMSUB', key)) as [string, number];
    return Number(count);
  }

  beforeAll(() => {
    admin = new Redis(URL);
    connections.push(admin);
  });
  afterAll(async () => {
    for (const channel of channels) await channel.stop();
    await admin.del(key);
    for (const redis of connections) redis.disconnect();
  });
  afterEach(() => admin.del(key));

  it('closes in one key, tells the other replica, and only extends a close', async () => {
    const a = await replica('a');
    const b = await replica('b');

    const standing = await a.channel.announce('auth', 5_000, 'status 401');
    expect(standing).toEqual({
      reason: 'auth',
      remainingMs: 5_000,
      detail: 'status 401',
      origin: a.channel.self,
    });
    const heard = await waitFor(() => b.heard[0], { what: 'b to hear of the close' });
    expect(heard).toMatchObject({ reason: 'auth', detail: 'status 401', origin: a.channel.self });
    expect(heard.remainingMs).toBeGreaterThan(4_000);
    expect(heard.remainingMs).toBeLessThanOrEqual(5_000);
    expect(a.heard).toEqual([]); // its own close is not news to it

    const stored = JSON.parse((await admin.get(key))!) as Record<string, unknown>;
    const [seconds] = await admin.time();
    expect(stored).toMatchObject({ reason: 'auth', detail: 'status 401', origin: a.channel.self });
    expect(stored.until).toBeGreaterThan(Number(seconds) * 1000);
    expect(await admin.pttl(key)).toBeLessThanOrEqual(5_000); // gone when the close ends

    // Shorter than the standing close: nothing changes, nobody is told, the standing one comes back.
    const shorter = await b.channel.announce('outage', 1_000, 'HTTP 503');
    expect(shorter).toMatchObject({ reason: 'auth', origin: a.channel.self });
    expect(shorter!.remainingMs).toBeGreaterThan(1_000);
    // Longer: it replaces the standing close and a hears of it.
    await b.channel.announce('outage', 20_000, 'HTTP 503');
    const longer = await waitFor(() => a.heard[0], { what: 'a to hear of the longer close' });
    expect(longer).toMatchObject({ reason: 'outage', detail: 'HTTP 503', origin: b.channel.self });
    expect(a.heard).toHaveLength(1); // the shorter one was never announced
    expect(await admin.pttl(key)).toBeGreaterThan(15_000);
  });

  it('tells a replica that subscribes later of the close standing', async () => {
    const a = await replica('a');
    await a.channel.announce('auth', 10_000, 'status 403');

    const late = await replica('late');
    const heard = await waitFor(() => late.heard[0], {
      what: 'the late replica to read the close',
    });
    expect(heard).toMatchObject({ reason: 'auth', detail: 'status 403', origin: a.channel.self });
    expect(heard.remainingMs).toBeGreaterThan(5_000);
  });

  it('reads the key again when its subscription reconnects, so a close it missed still counts', async () => {
    const c = await replica('c');
    // A close written while c's subscription was away: in the key, never on the channel.
    const [seconds, micros] = await admin.time();
    const now = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    const close = { reason: 'outage', until: now + 10_000, detail: 'HTTP 503', origin: 'peer-x' };
    await admin.set(key, JSON.stringify(close), 'PX', 10_000);
    expect(c.heard).toEqual([]);

    const clients = (await admin.call('CLIENT', 'LIST', 'TYPE', 'pubsub')) as string;
    const line = clients
      .split('\n')
      .find((l) => l.includes(`name=mailbridge-gate:${c.channel.self}`));
    const id = /\bid=(\d+)/.exec(line!)![1];
    await admin.client('KILL', 'ID', id);

    const heard = await waitFor(() => c.heard[0], { what: 'c to read the close on reconnecting' });
    expect(heard).toMatchObject({ reason: 'outage', detail: 'HTTP 503', origin: 'peer-x' });
  });

  it('tells nobody, and queues nothing, while Redis cannot be reached, so the replica goes on alone', async () => {
    const port = await freePort(); // nothing listens there
    const redis = new Redis(`redis://127.0.0.1:${port}`, {
      lazyConnect: true,
      maxRetriesPerRequest: null,
    });
    connections.push(redis);
    redis.on('error', () => undefined);
    redis.connect().catch(() => undefined);
    const channel = new RedisGateChannel(redis, prefix, 'alone');
    expect(await channel.announce('auth', 5_000, 'status 401')).toBeUndefined();
    // Not queued either: a close sent when Redis comes back might no longer be true.
    expect((redis as unknown as { offlineQueue: { length: number } }).offlineQueue.length).toBe(0);
  });

  it('gives up on a Redis that hangs, and the close it held up is dropped, not applied late', async () => {
    const port = await freePort();
    const server = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    const redis = new Redis(`redis://127.0.0.1:${port}`, { maxRetriesPerRequest: null });
    connections.push(redis);
    redis.on('error', () => undefined); // refused while redis-server starts
    try {
      await waitFor(() => (redis.status === 'ready' ? true : undefined), {
        what: 'the private Redis',
      });
      const channel = new RedisGateChannel(redis, prefix, 'hung');
      expect(await channel.announce('outage', 1, 'HTTP 503')).toBeDefined(); // it reads Redis's clock
      server.kill('SIGSTOP');
      expect(await channel.announce('auth', 60_000, 'status 401')).toBeUndefined();
      server.kill('SIGCONT');
      // Commands on one connection run in order: once PING answers, the held-up close has run.
      expect(await redis.ping()).toBe('PONG');
      expect(await redis.exists(key)).toBe(0);
    } finally {
      server.kill('SIGCONT');
      server.kill('SIGKILL');
    }
  });

  it('pauses two VendorGates on two connections together, and reopens them together', async () => {
    jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    const a = new VendorGate(systemClock, (await replica('gate-a')).channel);
    const b = new VendorGate(systemClock, (await replica('gate-b')).channel);
    const reopened: number[] = [];
    for (const gate of [a, b]) {
      gate.onChange((state) => state.open && reopened.push(Date.now()));
    }
    try {
      expect(a.trip('auth', 3_000, 'status 401')).toBe(true);
      await waitFor(() => (b.state.open ? undefined : b.state), { what: 'b to close' });
      expect(b.state).toMatchObject({ open: false, reason: 'auth', origin: 'peer' });

      await waitFor(() => (reopened.length === 2 ? true : undefined), { what: 'both to reopen' });
      expect(Math.abs(reopened[0] - reopened[1])).toBeLessThanOrEqual(1_000);
    } finally {
      a.close();
      b.close();
      jest.restoreAllMocks();
    }
  });

  it('closes its subscription at stop', async () => {
    const d = await replica('d');
    const before = await subscribers();
    await d.channel.stop();
    const after = await waitFor(
      async () => {
        const count = await subscribers();
        return count < before ? count : undefined;
      },
      { what: 'the subscription to end' },
    );
    expect(after).toBe(before - 1);
  });
});
