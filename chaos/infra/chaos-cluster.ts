import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Admin } from 'kafkajs';
import { sleep } from '../../bench/infra/bench-kafka';
import { repoRoot } from '../../bench/infra/repo-root';
import { KafkaCluster } from '../../test/support/kafka-cluster';
import { RedisSentinelGroup } from '../../test/support/redis-sentinel';
import type { ClusterPorts } from '../config/chaos-options';

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
 * min.insync.replicas 2) and a Redis primary with two replicas under three Sentinels, on the
 * ports of `--cluster-port`, `--redis-node-port` and `--sentinel-port`, with dirs under
 * .cache/chaos that stay for reading after the run. Both are the tests' own helpers; this class
 * adds the two faults and what the service needs to find them.
 */
export class ChaosCluster {
  private constructor(
    readonly kafka: KafkaCluster,
    readonly redis: RedisSentinelGroup,
    private readonly passwords: { redis: string; sentinel: string },
    readonly dirs: { kafka: string; redis: string },
  ) {}

  static async start(ports: ClusterPorts): Promise<ChaosCluster> {
    const root = repoRoot();
    const dirs = {
      kafka: join(root, '.cache/chaos', `kafka-cluster-${ports.kafka}`),
      redis: join(root, '.cache/chaos', `redis-sentinel-${ports.redis}`),
    };
    // Fresh for each invocation, so that nothing of another run's data is read.
    const passwords = { redis: secret(), sentinel: secret() };
    const kafka = await KafkaCluster.start({ port: ports.kafka, dir: dirs.kafka });
    try {
      const three = (first: number) => [first, first + 1, first + 2];
      const redis = await RedisSentinelGroup.start({
        password: passwords.redis,
        sentinelPassword: passwords.sentinel,
        place: { nodes: three(ports.redis), sentinels: three(ports.sentinel), dir: dirs.redis },
      });
      return new ChaosCluster(kafka, redis, passwords, dirs);
    } catch (error) {
      await kafka.stop().catch(() => undefined);
      throw error;
    }
  }

  get brokers(): string[] {
    return this.kafka.brokers;
  }

  /** Every node's log: the group's coordinator moves with a kill, and each logs its own part. */
  get brokerLogs(): string[] {
    return [1, 2, 3].map((node) => this.kafka.logFile(node));
  }

  /** How an instance finds Redis: through the Sentinels, the passwords as the service takes them. */
  serviceEnv(): Record<string, string> {
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

  /** Every process by its PID: the Redis nodes and Sentinels, then the Kafka nodes. */
  async stop(): Promise<void> {
    this.redis.stop();
    await this.kafka.stop();
  }
}

function secret(): string {
  return randomBytes(18).toString('base64url');
}
