import { randomUUID } from 'node:crypto';
import { RedisConnection } from '../../src/redis/redis.connection';
import { RedisClusterGroup } from '../support/redis-cluster';
import { waitFor } from '../support/kafka-helpers';

/**
 * `REDIS_WAIT_REPLICAS` on a Redis Cluster, three primaries with a replica each: a write counts
 * once the replica of every primary holds it, so a primary's failover cannot lose a `sending`
 * mark or an outcome. One paused replica holds every write back; readiness names the shortfall.
 */
describe('waiting for replicas on a Redis Cluster', () => {
  const password = `cluster-${randomUUID()}`;
  const prefix = `mailbridge-test:${randomUUID()}:`;
  let group: RedisClusterGroup;
  let connection: RedisConnection;

  beforeAll(async () => {
    group = await RedisClusterGroup.start({ password });
    connection = new RedisConnection(
      {
        url: `redis://:${password}@cluster`,
        nodes: [{ host: '127.0.0.1', port: group.nodes[0].port }],
      },
      prefix,
      Date.now,
      undefined,
      { replicas: 1, timeoutMs: 200, onShortfall: 'wait' },
    );
    await connection.connect();
  });

  afterAll(async () => {
    await connection?.close();
    group?.stop();
  });

  it("confirms writes on every primary only once each one's replica holds them", async () => {
    // Keys on all three primaries, so that every primary's connection has written.
    const keys = Array.from({ length: 30 }, (_, i) => `${prefix}k${i}`);
    await Promise.all(keys.map((k) => connection.client.set(k, '1')));
    const primaries = await group.primaryPorts();
    for (const port of primaries) expect(await group.dbsize(port)).toBeGreaterThan(0);
    await connection.replicated();
    expect(connection.connected).toBe(true);

    const roles = await group.roles();
    const replica = roles.find((r) => r.role === 'slave')!;
    group.pause(replica.port);
    try {
      await Promise.all(keys.map((k) => connection.client.set(k, '2')));
      let confirmed = false;
      const waiting = connection.replicated().then(() => (confirmed = true));
      const problem = await waitFor(() => Promise.resolve(connection.connectionProblem), {
        timeoutMs: 20_000,
        what: 'readiness to name the replica shortfall',
      });
      expect(problem).toMatch(/0 of 1 Redis replicas acknowledged a write within 200 ms/);
      expect(confirmed).toBe(false);
      group.resume(replica.port);
      await waiting;
      expect(confirmed).toBe(true);
      expect(connection.connectionProblem).toBeUndefined();
    } finally {
      group.resume(replica.port);
    }
  });
});
