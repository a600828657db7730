import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { SANDBOX_API_KEY, SANDBOX_RELAY_ACCESS_TOKEN } from '../../src/config/sandbox-defaults';
import { startNode, type StartedChild } from '../infra/child-process';
import { imageRuntime, type ImageRuntime } from '../infra/image-runtime';
import { repoRoot } from '../infra/repo-root';
import type { BenchContext, EventPhase, InputTopics, ResultTopics } from './bench-context';
import type { ConsumerChildConfig, FloorChildConfig } from './child-messages';
import { ORDER_PLACED, USER_SIGNED_UP } from '../workloads/event-factory';

export interface PhaseProcess {
  started: StartedChild;
  /** The consumer group whose joining marks the start of the measured window. */
  groupId: string;
}

/**
 * Starts the process of one event phase. The real service and the naive one get the same
 * environment, the way an operator would configure mailbridge in production; the ceilings get
 * their settings as JSON.
 */
export async function startPhaseProcess(
  ctx: BenchContext,
  phase: EventPhase,
  runName: string,
  input: InputTopics,
  results: ResultTopics,
  only: 'user' | 'order',
  expected?: number,
  /**
   * Whether mailbridge runs under the profiler `--profile`, `--alloc-profile` or
   * `--survivor-profile` asks for; the backlog test, which measures memory, passes false.
   */
  profiled = true,
): Promise<PhaseProcess> {
  const groupId = phaseGroupId(ctx, runName);
  const logName = `${ctx.runId}.${runName}`;
  switch (phase) {
    case 'ceiling-consume':
    case 'ceiling-consume-produce': {
      const config: ConsumerChildConfig = {
        brokers: ctx.brokers,
        groupId,
        topics: [input[only]],
        resultTopic: results.sent,
        partitions: ctx.options.partitions,
        expected,
      };
      const started = startNode(
        logName,
        join(__dirname, `${phase}.child.js`),
        { BENCH_CHILD: JSON.stringify(config) },
        { ipc: true },
      );
      return { started, groupId };
    }
    case 'pipeline-floor':
    case 'pipeline-floor-bounded': {
      const config: FloorChildConfig = {
        brokers: ctx.brokers,
        groupId,
        topics: [input[only]],
        workload: only,
        eventType: only === 'user' ? USER_SIGNED_UP : ORDER_PLACED,
        resultTopic: results.sent,
        contactListTopic: results.contactList,
        partitions: ctx.options.partitions,
        expected,
        relayBaseUrl: `${ctx.vendor.url}/relay/v1`,
        token: SANDBOX_RELAY_ACCESS_TOKEN,
        vendorBaseUrl: `${ctx.vendor.url}/v1`,
        apiKey: SANDBOX_API_KEY,
        redisUrl: benchRedisUrl(),
      };
      const { env, nodeArgs } = floorLaunch(
        phase,
        runName,
        ctx.options.profile ? floorProfileDir(ctx) : undefined,
      );
      const started = startNode(
        logName,
        join(__dirname, 'pipeline-floor.child.js'),
        { BENCH_CHILD: JSON.stringify(config), ...env },
        { ipc: true, nodeArgs },
      );
      return { started, groupId };
    }
    case 'naive': {
      const env = await serviceEnv(ctx, groupId, input, results, runName);
      // Nest's Kafka transport appends "-server" to the group id it is given.
      const started = startNode(logName, join(__dirname, '../naive/main.js'), env);
      return { started, groupId: `${groupId}-server` };
    }
    case 'mailbridge': {
      const env = await serviceEnv(ctx, groupId, input, results, runName);
      // Run as the image runs it: with the node flags of its CMD (the heap limits come in the
      // environment). Node writes the profile when the process exits, which the phase's SIGTERM
      // makes it do.
      const nodeArgs = [...imageRuntime().nodeFlags];
      if (profiled && ctx.options.profile) {
        nodeArgs.push(
          '--cpu-prof',
          `--cpu-prof-dir=${profileDir(ctx)}`,
          `--cpu-prof-name=${runName}.cpuprofile`,
        );
      }
      if (profiled && ctx.options.heapProfile) {
        mkdirSync(profileDir(ctx), { recursive: true });
        nodeArgs.push('--require', join(__dirname, '../infra/alloc-sampler.js'));
        env.BENCH_ALLOC_PROFILE = join(profileDir(ctx), `${runName}.heapprofile`);
        env.BENCH_ALLOC_KEEP = ctx.options.heapProfile;
      }
      const started = startNode(logName, join(repoRoot(), 'dist/main.js'), env, { nodeArgs });
      return { started, groupId };
    }
  }
}

/** Where the profiling flags put the profiles of this run's mailbridge processes. */
export function profileDir(ctx: BenchContext): string {
  return join(repoRoot(), '.cache/bench-profiles', ctx.runId);
}

/**
 * How a floor's process starts: `pipeline-floor` with node's defaults, `pipeline-floor-bounded`
 * with the image's heap limit (its `NODE_OPTIONS`) and node flags, as mailbridge runs: the same
 * work, within the same memory. With `profileDir`, under the CPU profiler.
 */
export function floorLaunch(
  phase: 'pipeline-floor' | 'pipeline-floor-bounded',
  runName: string,
  profileDir?: string,
  runtime: ImageRuntime = imageRuntime(),
): { env: Record<string, string>; nodeArgs: string[] } {
  const bounded = phase === 'pipeline-floor-bounded';
  const nodeArgs = bounded ? [...runtime.nodeFlags] : [];
  if (profileDir !== undefined) {
    nodeArgs.push(
      '--cpu-prof',
      `--cpu-prof-dir=${profileDir}`,
      `--cpu-prof-name=${runName}.cpuprofile`,
    );
  }
  return { env: bounded ? { NODE_OPTIONS: runtime.nodeOptions } : {}, nodeArgs };
}

/** Where `--profile` puts the floors' profiles: beside mailbridge's, not among them. */
export function floorProfileDir(ctx: BenchContext): string {
  return join(profileDir(ctx), 'floors');
}

/** The key the service under test hashes addresses with for its suppression list. */
export const BENCH_SUPPRESSION_HASH_KEY = 'suppression-hash-key-for-tests-only-32';

/** The consumer group of a phase run: its run id and the run's name. */
export function phaseGroupId(ctx: BenchContext, runName: string): string {
  return `${ctx.runId}.${runName}`;
}

/** `IDEMPOTENCY_KEY_PREFIX` of the service in a run of `groupId`: each run its own namespace. */
export function serviceKeyPrefix(groupId: string): string {
  return `bench:${groupId}:`;
}

/** The environment of `node dist/main.js` in production mode against the bench's sandbox. */
async function serviceEnv(
  ctx: BenchContext,
  groupId: string,
  input: InputTopics,
  results: ResultTopics,
  runName: string,
): Promise<Record<string, string>> {
  const extra = Object.fromEntries(
    Object.entries(ctx.options.serviceEnv).map(([k, v]) => [k, v.replaceAll('{run}', groupId)]),
  );
  return {
    MAILBRIDGE_MODE: 'production',
    // LOG_LEVEL is left at its default (`log`): the line per event and template is part of what
    // the service costs in production (into the phase's log file, JSON).
    HTTP_PORT: String(await freePort()),
    KAFKA_BROKERS: ctx.brokers.join(','),
    KAFKA_CLIENT_ID: `bench-${runName}`,
    KAFKA_GROUP_ID: groupId,
    // The bench preloads its events before the service starts: a new group must read them.
    CONSUMER_START_FROM: 'earliest',
    // The bench creates the topics it measures; the service creates the command topics it also
    // subscribes to, which the bench leaves empty.
    KAFKA_CREATE_TOPICS: 'true',
    TOPIC_CAMPAIGN_REQUESTED: `bench.campaign-requested.${groupId}`,
    TOPIC_CONTACT_LIST_REQUESTED: `bench.contact-list-requested.${groupId}`,
    // The bench's Redis, not the service's default: a child gets only the environment it is given.
    REDIS_URL: benchRedisUrl(),
    // Every repetition replays the same event ids: each run gets its own idempotency namespace.
    IDEMPOTENCY_KEY_PREFIX: serviceKeyPrefix(groupId),
    // The machine's Redis is shared: a run's million keys must not stay for the default week.
    IDEMPOTENCY_TTL_SECONDS: '900',
    TOPIC_USER_SIGNED_UP: input.user,
    TOPIC_ORDER_PLACED: input.order,
    TOPIC_CAMPAIGN_SENT: results.sent,
    TOPIC_DISPATCH_FAILED: results.failed,
    TOPIC_DEAD_LETTER: results.deadLetter,
    TOPIC_CONTACT_LIST_CREATED: results.contactList,
    VENDOR_RELAY_BASE_URL: `${ctx.vendor.url}/relay/v1`,
    VENDOR_BASE_URL: `${ctx.vendor.url}/v1`,
    VENDOR_RELAY_ACCESS_TOKEN: SANDBOX_RELAY_ACCESS_TOKEN,
    VENDOR_API_KEY: SANDBOX_API_KEY,
    SUPPRESSION_HASH_KEY: BENCH_SUPPRESSION_HASH_KEY,
    SENDER_FROM_EMAIL: 'bench@mailbridge.local',
    // Run as the image runs it: with the heap limit the Dockerfile sets.
    NODE_OPTIONS: imageRuntime().nodeOptions,
    ...extra,
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** The Redis the floor and mailbridge are given: REDIS_URL when set, else the machine's. */
export function benchRedisUrl(): string {
  return process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
}
