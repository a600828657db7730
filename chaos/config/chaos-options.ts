import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';

export const POLICIES = ['resend', 'fail'] as const;
export type Policy = (typeof POLICIES)[number];

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
  --http-port N           first HTTP_PORT of the instances (default 38301)
  --service-env K=V       extra env for every instance (repeatable)
  --src REF               run the service built from this commit's src/ (built apart under
                          .cache/chaos/build), not the working tree's dist/
  --out DIR               where figures go (default chaos/results; smoke .cache/chaos/results)`;

/** The flags `parseArgs` reads; numbers are strings until checked, with their defaults below. */
const FLAGS = {
  help: { type: 'boolean' },
  smoke: { type: 'boolean', default: false },
  graceful: { type: 'boolean', default: false },
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
  'http-port': { type: 'string', default: '38301' },
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
  const { smoke, graceful } = values;
  const pick = (raw: string | undefined, full: string, short: string) =>
    raw ?? (smoke ? short : full);
  // A graceful round restarts neither the broker nor Redis unless told to: their restarts are
  // not graceful stops of the service, and what they cause would blur its verdict.
  const infraRestarts = (raw: string | undefined, full: string, short: string) =>
    graceful ? (raw ?? '0') : pick(raw, full, short);
  const faultShare = Number(values['fault-share']);
  if (!(faultShare >= 0 && faultShare <= 1)) throw usage('--fault-share must be in [0, 1]');
  return {
    smoke,
    graceful,
    policies: policies(values.policy),
    seed: count('seed', values.seed),
    rate: positive('rate', pick(values.rate, '100', '25')),
    signups: count('signups', pick(values.signups, '20000', '900')),
    orders: count('orders', pick(values.orders, '2000', '100')),
    kills: count('kills', pick(values.kills, '22', '3')),
    brokerRestarts: count('broker-restarts', infraRestarts(values['broker-restarts'], '3', '1')),
    redisRestarts: count('redis-restarts', infraRestarts(values['redis-restarts'], '1', '1')),
    scaleCycles: count('scale-cycles', pick(values['scale-cycles'], '3', '1')),
    faultShare,
    drainSeconds: positive('drain', pick(values.drain, '300', '180')),
    shutdownTimeoutMs: positive('shutdown-timeout', values['shutdown-timeout']),
    partitions: positive('partitions', values.partitions),
    kafkaPort: positive('kafka-port', values['kafka-port']),
    redisPort: positive('redis-port', values['redis-port']),
    httpBasePort: positive('http-port', values['http-port']),
    serviceEnv: Object.fromEntries(values['service-env'].map(keyValue)),
    srcRef: values.src,
    outDir: values.out ?? (smoke ? '.cache/chaos/results' : 'chaos/results'),
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
