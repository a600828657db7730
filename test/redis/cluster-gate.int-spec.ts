import { randomUUID } from 'node:crypto';
import { Cluster } from 'ioredis';
import { budgetKey } from '../../src/cluster/request-budget.provider';
import type { SharedClose } from '../../src/cluster/gate-channel';
import { RedisBudgetStore } from '../../src/cluster/redis-budget.store';
import { RedisGateChannel } from '../../src/cluster/redis-gate-channel';
import { RedisConnection } from '../../src/redis/redis.connection';
import { waitFor } from '../support/kafka-helpers';
import { RedisClusterGroup } from '../support/redis-cluster';

jest.setTimeout(120_000);

/**
 * What the replicas share in `src/cluster/`, on a Redis Cluster of three primaries and three
 * replicas: the vendor gate's close reaches a replica whose subscription sits on another node
 * than the key, and a replica whose node dies subscribes on another one and reads the close it
 * missed; the request budget's buckets live in two slots and are taken on the cluster client.
 */
describe('the shared vendor gate and request budget on a Redis Cluster', () => {
  const password = `p-${randomUUID()}`;
  const prefix = `mailbridge-test:${randomUUID()}:`;
  const key = `${prefix}cluster:vendor-gate`;
  const connections: RedisConnection[] = [];
  const channels: RedisGateChannel[] = [];
  let group: RedisClusterGroup;
  let admin: Cluster;

  beforeAll(async () => {
    group = await RedisClusterGroup.start({ password });
    admin = new Cluster([{ host: '127.0.0.1', port: group.nodes[0].port }], {
      redisOptions: { password },
    });
  });

  afterAll(async () => {
    for (const channel of channels) await channel.stop();
    for (const connection of connections) await connection.close();
    admin?.disconnect();
    group?.stop();
  });

  /** A replica's channel on its own cluster connection, found from one node. */
  async function replica(name: string, port = group.nodes[1].port) {
    const connection = new RedisConnection(
      { url: `redis://:${password}@cluster-managed`, nodes: [{ host: '127.0.0.1', port }] },
      prefix,
    );
    connections.push(connection);
    await connection.connect();
    const channel = new RedisGateChannel(connection.client, prefix, `${name}-${randomUUID()}`);
    channels.push(channel);
    const heard: SharedClose[] = [];
    channel.listen((close) => heard.push(close));
    channel.start();
    const subscribedOn = await waitFor(() => subscriptionPort(channel), {
      what: `${name} to subscribe`,
    });
    return { channel, heard, subscribedOn };
  }

  /** The node whose client list shows the channel's subscription, once it has subscribed. */
  async function subscriptionPort(channel: RedisGateChannel): Promise<number | undefined> {
    for (const port of await alivePorts()) {
      // A node just killed is not flagged failed yet: it answers nothing, and holds no one.
      const clients = String(
        await group.ask(port, 'CLIENT', 'LIST', 'TYPE', 'pubsub').catch(() => ''),
      );
      if (clients.includes(`name=mailbridge-gate:${channel.self} `)) return port;
    }
    return undefined;
  }

  async function alivePorts(): Promise<number[]> {
    return (await group.roles()).filter((r) => !r.failed).map((r) => r.port);
  }

  it("tells a replica subscribed on another node than the key's of a close", async () => {
    const a = await replica('a');
    const b = await replica('b', group.nodes[2].port);
    const standing = await a.channel.announce('auth', 10_000, 'status 401');
    expect(standing).toMatchObject({ reason: 'auth', origin: a.channel.self });
    const heard = await waitFor(() => b.heard[0], { what: 'b to hear of the close' });
    expect(heard).toMatchObject({ reason: 'auth', detail: 'status 401', origin: a.channel.self });
    expect(await admin.pttl(key)).toBeGreaterThan(5_000);
    await admin.del(key);
  });

  it('subscribes on another node when its node dies, and reads the close it missed', async () => {
    const c = await replica('c');
    // A close written where c cannot hear it (no PUBLISH), on a replica too before the kill.
    const [seconds] = await admin.time();
    const close = { reason: 'outage', until: Number(seconds) * 1000 + 30_000, detail: 'HTTP 503' };
    await admin.set(key, JSON.stringify({ ...close, origin: 'peer-x' }), 'PX', 30_000);
    await Promise.all(admin.nodes('master').map((node) => node.wait(1, 5_000)));
    expect(c.heard).toEqual([]);

    await group.kill(c.subscribedOn);
    const heard = await waitFor(() => c.heard[0], {
      timeoutMs: 60_000,
      what: 'c to read the close from another node',
    });
    expect(heard).toMatchObject({ reason: 'outage', detail: 'HTTP 503', origin: 'peer-x' });
    const movedTo = await waitFor(() => subscriptionPort(c.channel), {
      what: 'c subscribed again',
    });
    expect(movedTo).not.toBe(c.subscribedOn);
  });

  it('takes budget tokens on the cluster client, one bucket per endpoint in its own slot', async () => {
    const connection = connections[0];
    const store = new RedisBudgetStore(connection.client);
    const contacts = budgetKey(prefix, 'contacts', 'api-key');
    const relay = budgetKey(prefix, 'relay', 'relay-token');
    const pace = { intervalMs: 60_000, toleranceMs: 0 };
    expect(await store.take(contacts, pace)).toBe(0);
    expect(await store.take(contacts, pace)).toBeGreaterThan(0); // the next one is a minute away
    expect(await store.take(relay, pace)).toBe(0); // its own bucket
    expect(await admin.exists(contacts)).toBe(1);
    expect(await admin.exists(relay)).toBe(1);
  });
});
