import { randomUUID } from 'node:crypto';
import { RedisConnection } from '../../src/redis/redis.connection';
import { RedisClusterGroup } from '../support/redis-cluster';
import { waitFor } from '../support/kafka-helpers';

/**
 * `REDIS_WAIT_REPLICAS` on a Redis Cluster, three primaries with a replica each: a write counts
 * once the replica of every primary holds it, so a primary's failover cannot lose a `sending`
 * mark or an outcome. One paused replica holds every write back; readiness names the shortfall.
 * Readiness PINGs every primary, so a hung one shows too.
 */
describe('waiting for replicas on a Redis Cluster', () => {
  const password = `cluster-${randomUUID()}`;
  const prefix = `mailbridge-test:${randomUUID()}:`;
  let group: RedisClusterGroup;
  let connection: RedisConnection;

  beforeAll(async () => {
    // No failover while a test pauses a node: only the service's view of it is under test.
    group = await RedisClusterGroup.start({ password, nodeTimeoutMs: 30_000 });
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

  it('PINGs every primary, so that readiness names a hung one', async () => {
    const watch = () =>
      new RedisConnection(
        {
          url: `redis://:${password}@cluster`,
          nodes: [{ host: '127.0.0.1', port: group.nodes[0].port }],
        },
        prefix,
        Date.now,
        { pingIntervalMs: 50, pingTimeoutMs: 1_000 },
      );
    const primaries = await group.primaryPorts();
    const pings = async (port: number) => {
      const stats = String(await group.ask(port, 'INFO', 'commandstats'));
      return Number(/cmdstat_ping:calls=(\d+)/.exec(stats)?.[1] ?? 0);
    };

    // Every round PINGs each primary: once the rounds stop, every primary has had as many.
    const counting = watch();
    await counting.connect();
    await group.resetStats();
    await waitFor(
      async () => {
        const each = await Promise.all(primaries.map(pings));
        return Math.min(...each) >= 30 || undefined;
      },
      { timeoutMs: 30_000, what: 'thirty PINGs on every primary' },
    );
    await counting.close();
    const counts = await Promise.all(primaries.map(pings));
    // Apart from the suite's other connection, whose round a second may fall between two reads.
    expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);

    const watched = watch();
    await watched.connect();
    const hung = primaries[1];
    try {
      group.pause(hung);
      const problem = await waitFor(() => Promise.resolve(watched.connectionProblem), {
        timeoutMs: 20_000,
        what: 'readiness to name the hung primary',
      });
      expect(problem).toMatch(
        new RegExp(`^no answer to PING from 127\\.0\\.0\\.1:${hung} for \\d+ ms$`),
      );
      group.resume(hung);
      await waitFor(() => Promise.resolve(watched.connected || undefined), {
        timeoutMs: 20_000,
        what: 'readiness back once the primary answers',
      });
    } finally {
      group.resume(hung);
      await watched.close();
    }
  });
});
