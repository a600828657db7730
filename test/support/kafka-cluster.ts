import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type Admin, Kafka, logLevel } from 'kafkajs';
import { repoRoot } from '../../bench/infra/repo-root';
import { freePortRun } from './free-port';

const run = promisify(execFile);
/** Found from the checkout, not from this file: the chaos harness runs a compiled copy of it. */
const SCRIPT = join(repoRoot(), 'scripts/kafka/cluster.sh');
/** `offsets.topic.num.partitions` in scripts/kafka/kafka.sh. */
const OFFSETS_PARTITIONS = 4;

export interface KafkaClusterPlace {
  /** Node N listens on port + 2(N-1), its controller on the port after. */
  port: number;
  /** Kept by `stop` (the brokers' logs stay to read); a test's temporary dir by default. */
  dir: string;
}

/**
 * Three Kafka nodes of one test (scripts/kafka/cluster.sh): replication factor 3,
 * min.insync.replicas 2. A node can be killed with -9 and revived on its data; every node is
 * stopped by its PID at the end. A test takes free ports and a temporary dir; the chaos harness
 * gives its own.
 */
export class KafkaCluster {
  private constructor(
    private readonly env: NodeJS.ProcessEnv,
    private readonly dir: string,
    readonly brokers: string[],
  ) {}

  static async start(place?: KafkaClusterPlace): Promise<KafkaCluster> {
    const base = place?.port ?? (await freePortRun(6));
    const dir = place?.dir ?? mkdtempSync(join(tmpdir(), 'mailbridge-cluster-'));
    const env = { ...process.env, KAFKA_CLUSTER_PORT: String(base), KAFKA_CLUSTER_DIR: dir };
    const cluster = new KafkaCluster(
      env,
      dir,
      [base, base + 2, base + 4].map((p) => `127.0.0.1:${p}`),
    );
    try {
      await cluster.script('start');
    } catch (error) {
      await (place ? cluster.stop() : cluster.destroy());
      throw error;
    }
    return cluster;
  }

  kafka(clientId = 'test-cluster'): Kafka {
    return new Kafka({ clientId, brokers: this.brokers, logLevel: logLevel.NOTHING });
  }

  /** Node ids are 1, 2, 3, as cluster.sh numbers them. */
  async kill(node: number): Promise<void> {
    await this.script('kill', String(node));
  }

  async revive(node: number): Promise<void> {
    await this.script('revive', String(node));
  }

  pid(node: number): number {
    return Number(readFileSync(join(this.dir, `node-${node}`, 'broker.pid'), 'utf8'));
  }

  /** Node N's own log; the group coordinator of the moment writes each rebalance into it. */
  logFile(node: number): string {
    return join(this.dir, `node-${node}`, 'broker.log');
  }

  /**
   * The node coordinating `groupId`: the leader of its partition of `__consumer_offsets`
   * (Kafka's `abs(groupId.hashCode) % partitions`), which must exist already.
   */
  async coordinatorOf(admin: Admin, groupId: string): Promise<number> {
    const partition = javaStringHash(groupId) % OFFSETS_PARTITIONS;
    const { topics } = await admin.fetchTopicMetadata({ topics: ['__consumer_offsets'] });
    const leader = topics[0].partitions.find((p) => p.partitionId === partition)?.leader;
    if (leader === undefined) throw new Error(`no leader for __consumer_offsets-${partition}`);
    return leader;
  }

  /** Stops every node by the PID it was started with; the data dirs and logs stay. */
  async stop(): Promise<void> {
    await this.script('stop');
  }

  async destroy(): Promise<void> {
    await this.stop().catch(() => undefined);
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async script(...args: string[]): Promise<void> {
    await run('bash', [SCRIPT, ...args], { env: this.env, timeout: 120_000 });
  }
}

/**
 * Java's `String.hashCode` (of UTF-16 code units, as Java's), made non-negative as Kafka's
 * `Utils.abs` does: `Math.abs`, with `Integer.MIN_VALUE` taken as 0.
 */
export function javaStringHash(value: string): number {
  let hash = 0;
  for (let i = 0; i < value.length; i++) hash = (Math.imul(31, hash) + value.charCodeAt(i)) | 0;
  return hash === -0x80000000 ? 0 : Math.abs(hash);
}
