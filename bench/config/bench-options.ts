import { parseArgs } from 'node:util';
import { BENCH_KAFKA_PORT } from '../infra/broker';

export const PHASES = [
  'ceiling-consume',
  'ceiling-consume-produce',
  'ceiling-http',
  'pipeline-floor',
  'pipeline-floor-bounded',
  'naive',
  'mailbridge',
] as const;
export type PhaseName = (typeof PHASES)[number];

/**
 * What a run measures: each workload's throughput phases, the latency run, the backlog test, and
 * mailbridge on single- against mixed-locale sign-ups (`locales`).
 */
export const SECTIONS = ['user', 'order', 'latency', 'backlog', 'locales', 'suppression'] as const;
export type Section = (typeof SECTIONS)[number];

/** Every knob of a run; `--scale` multiplies the event counts, never the rates or time caps. */
export interface BenchOptions {
  scale: number;
  reps: number;
  sections: Section[];
  phases: PhaseName[];
  partitions: number;
  userEvents: number;
  orderEvents: number;
  backlogEvents: number;
  /** Preloaded sign-ups of each locales workload (single-locale and mixed-locale). */
  localeEvents: number;
  /** Longest a throughput phase may run before it is stopped and reported as capped. */
  phaseTimeoutSeconds: number;
  /** The naive service handles one event at a time; it gets a shorter cap. */
  naiveSeconds: number;
  latencyRate: number;
  latencySeconds: number;
  /** Input at the same rate before the measured part, whose results are not measured. */
  latencyWarmupSeconds: number;
  latencyGraceSeconds: number;
  backlogSeconds: number;
  httpSeconds: number;
  httpConnections: number;
  httpBatch: number;
  vendorLatencyMs: number;
  /** Extra variables for the mailbridge process; `{run}` in a value becomes the phase run's id. */
  serviceEnv: Record<string, string>;
  brokers?: string;
  /** Port of the broker the run starts (not used with `brokers`). */
  kafkaPort: string;
  outDir: string;
  /** Write a CPU profile of every mailbridge phase process, and a summary of them. */
  profile: boolean;
  /**
   * Write a heap-sampling profile of every mailbridge phase process, and a summary of them:
   * every byte allocated (`--alloc-profile`) or only those that outlived a scavenge
   * (`--survivor-profile`).
   */
  heapProfile?: HeapProfileKind;
}

/** What a heap-sampling profile counts (`bench/infra/alloc-sampler.ts`). */
export type HeapProfileKind = 'allocated' | 'survived';

const USAGE = `npm run bench -- [options]
  --scale F                 multiply every event count by F (default 1; e.g. 0.05 for a smoke run)
  --reps N                  repetitions of each phase, in alternating order (default 3)
  --only LIST               sections to run: ${SECTIONS.join(',')} (default all)
  --phases LIST             phases to run: ${PHASES.join(',')} (default all)
  --user-events N           preloaded user.signed_up.v1 events (default 100000)
  --order-events N          preloaded order.placed.v1 events (default 20000)
  --backlog-events N        events waiting in the backlog test (default 1000000)
  --locale-events N         sign-ups of each locales workload, single- and mixed-locale; mailbridge
                            runs each --reps times, alternating which goes first (default 50000)
  --phase-timeout S         cap of one throughput phase in seconds (default 60)
  --naive-seconds S         cap of one naive throughput phase in seconds (default 20)
  --latency-rate R          input events/s of the latency run (default 1000)
  --latency-seconds S       input duration of one latency run (default 12)
  --latency-warmup S        input at the same rate before it, not measured (default 3)
  --latency-grace S         wait for stragglers after the input stops (default 8)
  --backlog-seconds S       longest the backlog test may take to drain (default 300)
  --http-seconds S          duration of each ceiling-http measurement (default 4)
  --http-connections N      concurrent requests of ceiling-http (default 512)
  --http-batch N            recipients per request of the batched ceiling-http body (default 100)
  --vendor-latency MS       fixed sandbox latency of the throughput phases (default 25)
  --service-env K=V         extra env for mailbridge (repeatable); {run} expands to the run id
  --brokers LIST            use this Kafka instead of starting one (also KAFKA_BROKERS)
  --kafka-port P            port of the broker the run starts (default ${BENCH_KAFKA_PORT}; another
                            for a second run on the same machine)
  --out DIR                 where results go (default bench/results)
  --profile                 CPU-profile every mailbridge phase but the backlog test (it measures
                            memory), and the floors; top 20 by package and function written beside
                            the results (<stamp>.profile.md), with each workload's CPU per 1,000
                            events by stage, the floors' beside mailbridge's
  --alloc-profile           the same with V8's sampling heap profiler: what each mailbridge phase
                            allocated, freed objects included, per event and by package, function
                            and stage (<stamp>.alloc.md); not with --profile in the same run
  --survivor-profile        the same, counting only the bytes that outlived a scavenge (were
                            copied by the young generation's collector, most then promoted to old
                            space): what the collector's time follows (<stamp>.survivors.md); one
                            profiling flag per run`;

export function parseOptions(argv: string[], env: NodeJS.ProcessEnv): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      help: { type: 'boolean' },
      scale: { type: 'string', default: '1' },
      reps: { type: 'string', default: '3' },
      only: { type: 'string' },
      phases: { type: 'string' },
      partitions: { type: 'string', default: '6' },
      'user-events': { type: 'string', default: '100000' },
      'order-events': { type: 'string', default: '20000' },
      'backlog-events': { type: 'string', default: '1000000' },
      'locale-events': { type: 'string', default: '50000' },
      'phase-timeout': { type: 'string', default: '60' },
      'naive-seconds': { type: 'string', default: '20' },
      'latency-rate': { type: 'string', default: '1000' },
      'latency-seconds': { type: 'string', default: '12' },
      'latency-warmup': { type: 'string', default: '3' },
      'latency-grace': { type: 'string', default: '8' },
      'backlog-seconds': { type: 'string', default: '300' },
      'http-seconds': { type: 'string', default: '4' },
      'http-connections': { type: 'string', default: '512' },
      'http-batch': { type: 'string', default: '100' },
      'vendor-latency': { type: 'string', default: '25' },
      'service-env': { type: 'string', multiple: true, default: [] },
      brokers: { type: 'string' },
      'kafka-port': { type: 'string', default: BENCH_KAFKA_PORT },
      out: { type: 'string', default: 'bench/results' },
      profile: { type: 'boolean', default: false },
      'alloc-profile': { type: 'boolean', default: false },
      'survivor-profile': { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const profilers = (['profile', 'alloc-profile', 'survivor-profile'] as const).filter(
    (flag) => values[flag],
  );
  if (profilers.length > 1) {
    // Each profiler's work would be counted in the other's figures, and V8 samples the heap
    // one way per process.
    throw usage(`${profilers.map((flag) => `--${flag}`).join(' and ')} go in separate runs`);
  }
  const scale = positive('scale', values.scale);
  const count = (name: string, raw: string) => Math.max(1, Math.round(positive(name, raw) * scale));
  return {
    scale,
    reps: Math.round(positive('reps', values.reps)),
    sections: listOf('only', values.only, SECTIONS),
    phases: listOf('phases', values.phases, PHASES),
    partitions: Math.round(positive('partitions', values.partitions)),
    userEvents: count('user-events', values['user-events']),
    orderEvents: count('order-events', values['order-events']),
    backlogEvents: count('backlog-events', values['backlog-events']),
    localeEvents: count('locale-events', values['locale-events']),
    phaseTimeoutSeconds: positive('phase-timeout', values['phase-timeout']),
    naiveSeconds: positive('naive-seconds', values['naive-seconds']),
    latencyRate: positive('latency-rate', values['latency-rate']),
    latencySeconds: positive('latency-seconds', values['latency-seconds']),
    latencyWarmupSeconds: nonNegative('latency-warmup', values['latency-warmup']),
    latencyGraceSeconds: positive('latency-grace', values['latency-grace']),
    backlogSeconds: positive('backlog-seconds', values['backlog-seconds']),
    httpSeconds: positive('http-seconds', values['http-seconds']),
    httpConnections: Math.round(positive('http-connections', values['http-connections'])),
    httpBatch: Math.round(positive('http-batch', values['http-batch'])),
    vendorLatencyMs: nonNegative('vendor-latency', values['vendor-latency']),
    serviceEnv: Object.fromEntries(values['service-env'].map(keyValue)),
    brokers: values.brokers ?? env.KAFKA_BROKERS,
    kafkaPort: String(Math.round(positive('kafka-port', values['kafka-port']))),
    outDir: values.out,
    profile: values.profile,
    heapProfile: values['alloc-profile']
      ? 'allocated'
      : values['survivor-profile']
        ? 'survived'
        : undefined,
  };
}

function positive(name: string, raw: string): number {
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw usage(`--${name} must be a positive number`);
  return value;
}

function nonNegative(name: string, raw: string): number {
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw usage(`--${name} must be >= 0`);
  return value;
}

function listOf<T extends string>(name: string, raw: string | undefined, all: readonly T[]): T[] {
  if (raw === undefined) return [...all];
  const picked = raw.split(',').map((s) => s.trim());
  const unknown = picked.filter((p) => !all.includes(p as T));
  if (unknown.length > 0) throw usage(`--${name}: unknown ${unknown.join(', ')}`);
  return all.filter((p) => picked.includes(p));
}

function keyValue(raw: string): [string, string] {
  const at = raw.indexOf('=');
  if (at <= 0) throw usage(`--service-env expects KEY=VALUE, got "${raw}"`);
  return [raw.slice(0, at), raw.slice(at + 1)];
}

function usage(message: string): Error {
  return new Error(`${message}\n\n${USAGE}`);
}
