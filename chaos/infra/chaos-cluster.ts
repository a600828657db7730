import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Admin } from 'kafkajs';
import { sleep } from '../../bench/infra/bench-kafka';
import { repoRoot } from '../../bench/infra/repo-root';
import { KafkaCluster } from '../../test/support/kafka-cluster';
import { RedisClusterGroup } from '../../test/support/redis-cluster';
import { RedisSentinelGroup } from '../../test/support/redis-sentinel';
import type { ClusterPorts, Scenario } from '../config/chaos-options';

/** Longest wait for the Sentinels to name a new primary after the old one was killed. */
const FAILOVER_TIMEOUT_MS = 60_000;

export interface BrokerKillOutcome {
  node: number;
  pid: number;
  /** From `cluster.sh revive` to the node accepting clients again. */
  reviveMs: number;
}

export interface RedisFailoverOutcome {
  killedPort: number;
  promotedPort: number;
  /** From the kill to the Sentinels naming another node the primary. */
  failoverMs: number;
  /** Keys of the old primary just before the kill and of the new one just after its promotion. */
  keysBefore: number;
  keysAfter: number;
}

/**
 * The infrastructure of a `--cluster` run: three Kafka nodes (scripts/kafka/cluster.sh, RF 3,
 * min.insync.replicas 2) and, as its scenarios need them, a Redis primary with two replicas
 * under three Sentinels and a Redis Cluster of three primaries and three replicas, on the ports
 * of `--cluster-port`, `--redis-node-port`, `--sentinel-port` and `--redis-cluster-port`, with
 * dirs under .cache/chaos that stay for reading after the run. All are the tests' own helpers;
 * this class adds the faults and what the service needs to find them.
 */
export class ChaosCluster {
  private constructor(
    readonly kafka: KafkaCluster,
    private readonly sentinelGroup: RedisSentinelGroup | undefined,
    private readonly clusterGroup: RedisClusterGroup | undefined,
    private readonly passwords: { redis: string; sentinel: string },
    readonly dirs: { kafka: string; redis: string; redisCluster: string },
  ) {}

  static async start(ports: ClusterPorts, scenarios: Scenario[]): Promise<ChaosCluster> {
    const root = repoRoot();
    const dirs = {
      kafka: join(root, '.cache/chaos', `kafka-cluster-${ports.kafka}`),
      redis: join(root, '.cache/chaos', `redis-sentinel-${ports.redis}`),
      redisCluster: join(root, '.cache/chaos', `redis-cluster-${ports.redisCluster}`),
    };
    // Fresh for each invocation, so that nothing of another run's data is read.
    const passwords = { redis: secret(), sentinel: secret() };
    const kafka = await KafkaCluster.start({ port: ports.kafka, dir: dirs.kafka });
    let sentinels: RedisSentinelGroup | undefined;
    try {
      const three = (first: number) => [first, first + 1, first + 2];
      if (scenarios.some((s) => s !== 'redis-cluster-failover')) {
        sentinels = await RedisSentinelGroup.start({
          password: passwords.redis,
          sentinelPassword: passwords.sentinel,
          place: { nodes: three(ports.redis), sentinels: three(ports.sentinel), dir: dirs.redis },
        });
      }
      const shards = scenarios.includes('redis-cluster-failover')
        ? await RedisClusterGroup.start({
            password: passwords.redis,
            place: {
              ports: Array.from({ length: 6 }, (_, i) => ports.redisCluster + i),
              dir: dirs.redisCluster,
            },
          })
        : undefined;
      return new ChaosCluster(kafka, sentinels, shards, passwords, dirs);
    } catch (error) {
      sentinels?.stop();
      await kafka.stop().catch(() => undefined);
      throw error;
    }
  }

  /** The Sentinel-managed Redis (every scenario but `redis-cluster-failover`). */
  get redis(): RedisSentinelGroup {
    if (!this.sentinelGroup) throw new Error('no Redis under Sentinel in this run');
    return this.sentinelGroup;
  }

  /** The Redis Cluster (`redis-cluster-failover`). */
  get redisCluster(): RedisClusterGroup {
    if (!this.clusterGroup) throw new Error('no Redis Cluster in this run');
    return this.clusterGroup;
  }

  get brokers(): string[] {
    return this.kafka.brokers;
  }

  /** Every node's log: the group's coordinator moves with a kill, and each logs its own part. */
  get brokerLogs(): string[] {
    return [1, 2, 3].map((node) => this.kafka.logFile(node));
  }

  /**
   * How an instance finds Redis: through the Sentinels, or the Redis Cluster's nodes in a
   * `redis-cluster-failover` run, the passwords as the service takes them.
   */
  serviceEnv(scenario: Scenario): Record<string, string> {
    if (scenario === 'redis-cluster-failover') {
      return {
        // The host is not used: the nodes are REDIS_CLUSTER_NODES.
        REDIS_URL: 'redis://cluster-managed',
        REDIS_CLUSTER_NODES: this.redisCluster.addresses.join(','),
        REDIS_PASSWORD: this.passwords.redis,
      };
    }
    return {
      // The host is not used: the Sentinels say where the primary is.
      REDIS_URL: 'redis://sentinel-managed',
      REDIS_SENTINELS: this.redis.sentinelAddresses.map((s) => `${s.host}:${s.port}`).join(','),
      REDIS_SENTINEL_NAME: RedisSentinelGroup.NAME,
      REDIS_PASSWORD: this.passwords.redis,
      REDIS_SENTINEL_PASSWORD: this.passwords.sentinel,
    };
  }

  /** The node coordinating `groupId` now (the leader of its `__consumer_offsets` partition). */
  coordinatorOf(admin: Admin, groupId: string): Promise<number> {
    return this.kafka.coordinatorOf(admin, groupId);
  }

  /** kill -9 of `node`, and `cluster.sh revive` on its data dir `downMs` later. */
  async killBroker(node: number, downMs: number): Promise<BrokerKillOutcome> {
    const pid = this.kafka.pid(node);
    await this.kafka.kill(node);
    await sleep(downMs);
    const reviving = Date.now();
    await this.kafka.revive(node);
    return { node, pid, reviveMs: Date.now() - reviving };
  }

  /**
   * kill -9 of the primary of the moment; once the Sentinels have promoted a replica, and
   * `downMs` after the kill, the old node starts again as a replica of the new primary.
   */
  async failOverRedis(downMs: number): Promise<RedisFailoverOutcome> {
    const killedPort = await this.redis.primaryPort();
    const keysBefore = await this.redis.dbsize(killedPort).catch(() => -1);
    const killedAt = Date.now();
    await this.redis.kill(killedPort);
    let promotedPort = killedPort;
    while (promotedPort === killedPort) {
      if (Date.now() - killedAt > FAILOVER_TIMEOUT_MS)
        throw new Error(`no replica promoted within ${FAILOVER_TIMEOUT_MS} ms`);
      await sleep(100);
      promotedPort = await this.redis.primaryPort().catch(() => killedPort);
    }
    const failoverMs = Date.now() - killedAt;
    const keysAfter = await this.redis.dbsize(promotedPort).catch(() => -1);
    await sleep(Math.max(0, killedAt + downMs - Date.now()));
    await this.redis.revive(killedPort);
    return { killedPort, promotedPort, failoverMs, keysBefore, keysAfter };
  }

  /**
   * kill -9 of the Redis Cluster primary holding the most keys now; once the cluster has
   * promoted its replica and serves every slot again, and `downMs` after the kill, the old node
   * starts again on its node file and rejoins as a replica of the new primary.
   */
  async failOverRedisCluster(downMs: number): Promise<RedisFailoverOutcome> {
    const group = this.redisCluster;
    const primaries = await group.primaryPorts();
    const sizes = await Promise.all(primaries.map((port) => group.dbsize(port).catch(() => -1)));
    const keysBefore = Math.max(...sizes);
    const killedPort = primaries[sizes.indexOf(keysBefore)];
    const killedAt = Date.now();
    await group.kill(killedPort);
    await group.waitUntilHealthy(FAILOVER_TIMEOUT_MS);
    const failoverMs = Date.now() - killedAt;
    const now = await group.primaryPorts();
    const promotedPort = now.find((port) => !primaries.includes(port)) ?? killedPort;
    const keysAfter = await group.dbsize(promotedPort).catch(() => -1);
    await sleep(Math.max(0, killedAt + downMs - Date.now()));
    await group.revive(killedPort);
    await group.waitUntilHealthy(FAILOVER_TIMEOUT_MS);
    return { killedPort, promotedPort, failoverMs, keysBefore, keysAfter };
  }

  /** Every process by its PID: the Redis nodes and Sentinels, then the Kafka nodes. */
  async stop(): Promise<void> {
    this.sentinelGroup?.stop();
    this.clusterGroup?.stop();
    await this.kafka.stop();
  }
}

function secret(): string {
  return randomBytes(18).toString('base64url');
}
