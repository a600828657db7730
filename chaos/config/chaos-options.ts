import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';

export const POLICIES = ['resend', 'fail'] as const;
export type Policy = (typeof POLICIES)[number];

/**
 * What a run is about: `single` is the single-node mode (one broker, one Redis, restarted);
 * `--cluster` runs the others on a three-broker cluster, with a Sentinel-managed Redis, or
 * (`redis-cluster-failover`) a Redis Cluster of three primaries and three replicas.
 */
export const CLUSTER_SCENARIOS = [
  'broker-loss',
  'redis-failover',
  'redis-cluster-failover',
] as const;
/** What `--scenario both` (the default) runs: a broker lost, and a Sentinel-managed primary lost. */
const BOTH: Scenario[] = ['broker-loss', 'redis-failover'];
export type Scenario = 'single' | (typeof CLUSTER_SCENARIOS)[number];

/** Where a `--cluster` run puts its processes: ports apart from the single-node mode's. */
export interface ClusterPorts {
  /** Kafka node N on kafka + 2(N-1), its controller on the port after. */
  kafka: number;
  /** The three Redis nodes on redis, redis + 1, redis + 2 (the first starts as the primary). */
  redis: number;
  /** The three Sentinels on sentinel, sentinel + 1, sentinel + 2. */
  sentinel: number;
  /**
   * The Redis Cluster's six nodes on redisCluster … redisCluster + 5 (the first three start as
   * primaries), each bus port 10,000 above.
   */
  redisCluster: number;
}

/** Every knob of a chaos run. `--smoke` changes the defaults, never an explicit flag. */
export interface ChaosOptions {
  smoke: boolean;
  /**
   * A graceful round: the planned kills become SIGTERM restarts and, unless given, there are no
   * broker or Redis restarts, so that every double or list created twice is the stop's own doing.
   */
  graceful: boolean;
  policies: Policy[];
  seed: number;
  /** Input events per second, sign-ups and orders interleaved. */
  rate: number;
  signups: number;
  orders: number;
  kills: number;
  /** Three brokers and a Sentinel-managed Redis instead of one of each (`--cluster`). */
  cluster: boolean;
  /** The scenarios run one after the other, each under every policy. */
  scenarios: Scenario[];
  /** kill -9 of the broker leading the run's topics and group, in a `broker-loss` run. */
  brokerKills: number;
  /**
   * kill -9 of the Redis primary under Sentinel in a `redis-failover` run, of the Redis Cluster
   * primary holding the most keys in a `redis-cluster-failover` run.
   */
  redisFailovers: number;
  clusterPorts: ClusterPorts;
  brokerRestarts: number;
  redisRestarts: number;
  /** Times a third replica joins and later leaves the group (each a SIGTERM under load). */
  scaleCycles: number;
  /** Share of vendor requests the sandbox answers with a fault while the load runs. */
  faultShare: number;
  drainSeconds: number;
  shutdownTimeoutMs: number;
  partitions: number;
  kafkaPort: number;
  redisPort: number;
  /** First HTTP_PORT of the service instances; slot i gets basePort + i. */
  httpBasePort: number;
  serviceEnv: Record<string, string>;
  /** Build the service from this commit's src/ instead of running the working tree's dist/. */
  srcRef?: string;
  outDir: string;
}

const USAGE = `npm run chaos -- [options]
  --policy P              resend, fail or both, one after the other (default both)
  --smoke                 a short run: 1,000 events, 3 kills, 1 broker restart (about 1 minute)
  --cluster               three brokers (RF 3, min.insync.replicas 2) and a Redis primary with two
                          replicas and three Sentinels instead of one broker and one Redis; runs
                          the scenarios broker-loss and redis-failover, each under every policy,
                          with a smaller load by default (5,400 + 600 events at 50/s, 8 kills,
                          1 third-replica cycle); no broker or Redis restarts
  --scenario S            with --cluster: broker-loss, redis-failover, both (the two; default),
                          redis-cluster-failover (the service on a Redis Cluster of three
                          primaries and three replicas instead of Sentinel) or all
  --broker-kills N        broker-loss: kill -9 of the broker that leads the run's input and
                          result partitions and coordinates its group, revived on its data after
                          10-25 s (default 1)
  --redis-failovers N     redis-failover: kill -9 of the Redis primary; Sentinel promotes a
                          replica, the old node returns as a replica after 5-15 s (default 2;
                          smoke 1); redis-cluster-failover: the same for the cluster's primary
                          holding the most keys, its replica promoted by the cluster
  --cluster-port N        --cluster: first Kafka node (default 24600; nodes N, N+2, N+4)
  --redis-node-port N     --cluster: first Redis node (default 24700; nodes N..N+2)
  --sentinel-port N       --cluster: first Sentinel (default 24710; Sentinels N..N+2)
  --redis-cluster-port N  --cluster: first Redis Cluster node (default 22720; nodes N..N+5, bus
                          ports N+10000.., all below the ephemeral range)
  --graceful              a graceful round: every instance change is a SIGTERM (restarted after
                          the same delay as a kill), broker and Redis restarts default to 0, and
                          the verdict is stricter (no list twice, every stop within
                          SHUTDOWN_TIMEOUT_MS with exit 0, lag 0, every ambiguous send marked)
  --seed N                seed of every fault draw, so a run repeats (default 8)
  --rate R                input events/s (default 100; smoke 25)
  --signups N             user.signed_up.v1 events (default 20000; smoke 900)
  --orders N              order.placed.v1 events (default 2000; smoke 100)
  --kills N               kill -9 of a service instance, restarted after 0-5 s (default 22; smoke 3);
                          with --graceful a SIGTERM instead, restarted as long after its exit
  --broker-restarts N     broker restarts on the same data dir (default 3; smoke 1; graceful 0)
  --redis-restarts N      Redis kill -9 and start on the same dir (default 1; graceful 0)
  --scale-cycles N        a third replica joins and leaves (default 3; smoke 1)
  --fault-share F         share of vendor requests answered with a fault (default 0.3)
  --drain S               longest wait for every result after the faults (default 300; smoke 180)
  --shutdown-timeout MS   the service's SHUTDOWN_TIMEOUT_MS (default 15000)
  --partitions N          partitions of every topic (default 6)
  --kafka-port N          the run's own broker (default 39392; controller on N+1)
  --redis-port N          the run's own Redis (default 36379)
  --http-port N           first HTTP_PORT of the instances (default 38301; cluster 24801)
  --service-env K=V       extra env for every instance (repeatable)
  --src REF               run the service built from this commit's src/ (built apart under
                          .cache/chaos/build), not the working tree's dist/
  --out DIR               where figures go (default chaos/results; smoke .cache/chaos/results)`;

/** The flags `parseArgs` reads; numbers are strings until checked, with their defaults below. */
const FLAGS = {
  help: { type: 'boolean' },
  smoke: { type: 'boolean', default: false },
  graceful: { type: 'boolean', default: false },
  cluster: { type: 'boolean', default: false },
  scenario: { type: 'string', default: 'both' },
  'broker-kills': { type: 'string' },
  'redis-failovers': { type: 'string' },
  'cluster-port': { type: 'string', default: '24600' },
  'redis-node-port': { type: 'string', default: '24700' },
  'sentinel-port': { type: 'string', default: '24710' },
  // Bus ports 10,000 above: 32720-32725, still below Linux's ephemeral range.
  'redis-cluster-port': { type: 'string', default: '22720' },
  policy: { type: 'string', default: 'both' },
  seed: { type: 'string', default: '8' },
  rate: { type: 'string' },
  signups: { type: 'string' },
  orders: { type: 'string' },
  kills: { type: 'string' },
  'broker-restarts': { type: 'string' },
  'redis-restarts': { type: 'string' },
  'scale-cycles': { type: 'string' },
  'fault-share': { type: 'string', default: '0.3' },
  drain: { type: 'string' },
  'shutdown-timeout': { type: 'string', default: '15000' },
  partitions: { type: 'string', default: '6' },
  'kafka-port': { type: 'string', default: '39392' },
  'redis-port': { type: 'string', default: '36379' },
  'http-port': { type: 'string' },
  'service-env': { type: 'string', multiple: true, default: [] },
  src: { type: 'string' },
  out: { type: 'string' },
} satisfies ParseArgsOptionsConfig;

export function parseOptions(argv: string[]): ChaosOptions {
  const { values } = parseArgs({ args: argv, options: FLAGS });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const { smoke, graceful, cluster } = values;
  if (cluster && graceful) throw usage('--cluster and --graceful do not go together');
  // A cluster run's load is smaller: three brokers, three Redis nodes and three Sentinels share
  // the machine with the instances.
  const pick = (raw: string | undefined, full: string, short: string, clustered = full) =>
    raw ?? (smoke ? short : cluster ? clustered : full);
  // A graceful round restarts neither the broker nor Redis unless told to: their restarts are
  // not graceful stops of the service, and what they cause would blur its verdict. A cluster
  // run has no single broker or Redis to restart: its own faults take their place.
  const infraRestarts = (raw: string | undefined, full: string, short: string) => {
    if (cluster && raw !== undefined && raw !== '0')
      throw usage(
        '--cluster has no broker or Redis restarts: see --broker-kills, --redis-failovers',
      );
    return graceful || cluster ? (raw ?? '0') : pick(raw, full, short);
  };
  const faultShare = Number(values['fault-share']);
  if (!(faultShare >= 0 && faultShare <= 1)) throw usage('--fault-share must be in [0, 1]');
  return {
    smoke,
    graceful,
    policies: policies(values.policy),
    seed: count('seed', values.seed),
    rate: positive('rate', pick(values.rate, '100', '25', '50')),
    signups: count('signups', pick(values.signups, '20000', '900', '5400')),
    orders: count('orders', pick(values.orders, '2000', '100', '600')),
    kills: count('kills', pick(values.kills, '22', '3', '8')),
    cluster,
    scenarios: scenarios(cluster, values.scenario),
    brokerKills: count('broker-kills', values['broker-kills'] ?? '1'),
    redisFailovers: count('redis-failovers', pick(values['redis-failovers'], '2', '1')),
    clusterPorts: {
      kafka: positive('cluster-port', values['cluster-port']),
      redis: positive('redis-node-port', values['redis-node-port']),
      sentinel: positive('sentinel-port', values['sentinel-port']),
      redisCluster: positive('redis-cluster-port', values['redis-cluster-port']),
    },
    brokerRestarts: count('broker-restarts', infraRestarts(values['broker-restarts'], '3', '1')),
    redisRestarts: count('redis-restarts', infraRestarts(values['redis-restarts'], '1', '1')),
    scaleCycles: count('scale-cycles', pick(values['scale-cycles'], '3', '1', '1')),
    faultShare,
    drainSeconds: positive('drain', pick(values.drain, '300', '180')),
    shutdownTimeoutMs: positive('shutdown-timeout', values['shutdown-timeout']),
    partitions: positive('partitions', values.partitions),
    kafkaPort: positive('kafka-port', values['kafka-port']),
    redisPort: positive('redis-port', values['redis-port']),
    // The cluster's nine processes and its instances listen below Linux's ephemeral range
    // (32768-60999), so no client connection of the moment can hold one of their ports.
    httpBasePort: positive('http-port', values['http-port'] ?? (cluster ? '24801' : '38301')),
    serviceEnv: Object.fromEntries(values['service-env'].map(keyValue)),
    srcRef: values.src,
    outDir: values.out ?? (smoke ? '.cache/chaos/results' : 'chaos/results'),
  };
}

function scenarios(cluster: boolean, raw: string): Scenario[] {
  if (!cluster) {
    if (raw !== 'both') throw usage('--scenario needs --cluster');
    return ['single'];
  }
  if (raw === 'both') return [...BOTH];
  if (raw === 'all') return [...CLUSTER_SCENARIOS];
  if (!(CLUSTER_SCENARIOS as readonly string[]).includes(raw))
    throw usage(`--scenario: unknown ${raw}`);
  return [raw as Scenario];
}

/** The faults of the scenario's own kind; the other scenario's count is not played in it. */
export function scenarioCounts(
  options: Pick<ChaosOptions, 'brokerKills' | 'redisFailovers'>,
  scenario: Scenario,
): { brokerKills: number; redisFailovers: number } {
  return {
    brokerKills: scenario === 'broker-loss' ? options.brokerKills : 0,
    redisFailovers:
      scenario === 'redis-failover' || scenario === 'redis-cluster-failover'
        ? options.redisFailovers
        : 0,
  };
}

function policies(raw: string): Policy[] {
  if (raw === 'both') return [...POLICIES];
  if (!(POLICIES as readonly string[]).includes(raw)) throw usage(`--policy: unknown ${raw}`);
  return [raw as Policy];
}

function count(name: string, raw: string): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw usage(`--${name} must be an integer >= 0`);
  return value;
}

function positive(name: string, raw: string): number {
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw usage(`--${name} must be a positive number`);
  return value;
}

function keyValue(raw: string): [string, string] {
  const at = raw.indexOf('=');
  if (at <= 0) throw usage(`--service-env expects KEY=VALUE, got "${raw}"`);
  return [raw.slice(0, at), raw.slice(at + 1)];
}

function usage(message: string): Error {
  return new Error(`${message}\n\n${USAGE}`);
}
