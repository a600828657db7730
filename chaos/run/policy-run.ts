import { join } from 'node:path';
import type { Admin, Kafka } from 'kafkajs';
import { waitForStableGroup } from '../../bench/infra/bench-kafka';
import type { ImageRuntime } from '../../bench/infra/image-runtime';
import { seededRandom } from '../../test/support/seeded-random';
import { uniqueName, waitForCoordinator } from '../../test/support/kafka-helpers';
import {
  scenarioCounts,
  type ChaosOptions,
  type Policy,
  type Scenario,
} from '../config/chaos-options';
import { planFaults } from '../faults/fault-plan';
import { EXTRA_SLOT, FaultRunner, type FaultTargets } from '../faults/fault-runner';
import type { ChaosBroker } from '../infra/chaos-broker';
import type { ChaosCluster } from '../infra/chaos-cluster';
import type { ChaosRedis } from '../infra/chaos-redis';
import { ChaosVendor, chaosFaults } from '../infra/chaos-vendor';
import { createTopicsPatiently, whenTopicsKnown, type TopicLayout } from '../infra/run-topics';
import { groupLag } from '../observe/group-lag';
import { auditInput } from '../observe/input-audit';
import { RebalanceWatch } from '../observe/rebalance-watch';
import { ResultCollector } from '../observe/result-collector';
import type { ChaosRunReport } from '../report/chaos-report';
import { InstancePool } from '../service/instance-pool';
import { runTopics, serviceEnv } from '../service/service-env';
import { ChaosWorkload } from '../traffic/chaos-workload';
import { producePaced } from '../traffic/paced-producer';
import { catchUp, settleLag, waitForResults } from './drain';
import { assembleReport } from './run-report';

/** The single-node mode's broker and Redis, or a `--cluster` run's cluster. */
export type Backend =
  | { kind: 'single'; broker: ChaosBroker; redis: ChaosRedis }
  | { kind: 'cluster'; cluster: ChaosCluster };

export interface ChaosInfra {
  options: ChaosOptions;
  backend: Backend;
  kafka: Kafka;
  admin: Admin;
  /** The service build this invocation runs (a snapshot of dist/main.js). */
  serviceScript: string;
  /** How the image runs it: its heap limits and node flags, so chaos tries what ships. */
  runtime: ImageRuntime;
  logRoot: string;
  say: (message: string) => void;
}

const BASE_SLOTS = ['a', 'b'];

/**
 * One chaos run of one scenario under one ambiguity policy: fresh topics, group and idempotency
 * namespace on the shared broker(s) and Redis; the load and the seeded faults at once; then the
 * drain with faults off and every replica up; then the audit against the vendor's record.
 */
export async function runPolicy(
  infra: ChaosInfra,
  policy: Policy,
  scenario: Scenario = 'single',
): Promise<ChaosRunReport> {
  const { options, admin, kafka, backend } = infra;
  const started = Date.now();
  const named = scenario === 'single' ? policy : `${scenario}-${policy}`;
  const runId = uniqueName(`chaos-${named}`);
  const say = (message: string) => infra.say(`[${named}] ${message}`);
  const { topics, inputs, results, leader } = await createRunTopics(infra, runId, scenario);
  if (leader !== undefined)
    say(`broker ${leader} coordinates the group and leads every input and result partition`);
  const vendor = await ChaosVendor.start();
  const collector = await whenTopicsKnown(() =>
    new ResultCollector(kafka, { results, deadLetter: topics.TOPIC_DEAD_LETTER }).start(),
  );
  const wiring = {
    runId,
    policy,
    topics,
    brokers: backend.kind === 'single' ? backend.broker.brokers : backend.cluster.brokers,
    redis:
      backend.kind === 'single'
        ? { REDIS_URL: backend.redis.url }
        : backend.cluster.serviceEnv(scenario),
    vendorUrl: vendor.url,
    relayAccessToken: vendor.relayAccessToken,
    apiKey: vendor.apiKey,
  };
  const pool = new InstancePool([...BASE_SLOTS, EXTRA_SLOT], options.httpBasePort, {
    script: infra.serviceScript,
    nodeArgs: infra.runtime.nodeFlags,
    logDir: join(infra.logRoot, named),
    env: serviceEnv(wiring, options, infra.runtime),
    shutdownTimeoutMs: options.shutdownTimeoutMs,
    log: say,
  });
  const watch = new RebalanceWatch(
    admin,
    runId,
    backend.kind === 'single' ? [backend.broker.logFile] : backend.cluster.brokerLogs,
  );
  try {
    pool.startWatching();
    for (const slot of BASE_SLOTS) pool.ensureUp(slot);
    await waitForStableGroup(admin, runId, 120_000, () => true);
    say(
      `group ${runId} is stable; ${BASE_SLOTS.length} replicas up, logs in ${join(infra.logRoot, named)}`,
    );
    watch.start();

    const workload = new ChaosWorkload(uniqueName('run'), options.signups, options.orders);
    const expected = workload.expected();
    const loadMs = (workload.total / options.rate) * 1000;
    const counts = { ...options, ...scenarioCounts(options, scenario) };
    const plan = planFaults(counts, loadMs, seededRandom(options.seed));
    say(
      `load: ${workload.total} events at ${options.rate}/s (${Math.round(loadMs / 1000)} s), ${plan.length} faults planned`,
    );
    vendor.setFaults(chaosFaults(options.faultShare));
    const loadStart = Date.now();
    const targets: FaultTargets =
      backend.kind === 'single'
        ? backend
        : {
            kind: 'cluster',
            cluster: backend.cluster,
            victim: () => backend.cluster.coordinatorOf(admin, runId),
            redis: scenario === 'redis-cluster-failover' ? 'cluster' : 'sentinel',
          };
    const runner = new FaultRunner(pool, targets, say);
    let lastProgress = 0;
    const [produced, faultLog] = await Promise.all([
      producePaced(kafka, workload, { signup: inputs[0], order: inputs[1] }, options.rate, (n) => {
        if (n - lastProgress >= workload.total / 10) {
          lastProgress = n;
          say(
            `produced ${n}/${workload.total}; results so far ${collector.records}; live ${pool.live().join(',')}`,
          );
        }
      }),
      runner.run(plan, loadStart),
    ]);
    await pool.settle();

    vendor.setFaults({});
    const faultsOffAt = Date.now();
    for (const slot of [...BASE_SLOTS, EXTRA_SLOT]) pool.ensureUp(slot);
    say(
      `faults off after ${Math.round((faultsOffAt - loadStart) / 1000)} s; draining with every replica up`,
    );
    const complete = await waitForResults(
      expected,
      collector,
      faultsOffAt + options.drainSeconds * 1000,
      say,
    );
    const lagAtDrainEnd = await settleLag(admin, runId, inputs, 60_000);
    say(`drain ${complete ? 'complete' : 'incomplete'}; group lag ${lagAtDrainEnd}`);
    await pool.terminateAll('final stop');
    const lagAfterStop = await groupLag(admin, runId, inputs).catch(() => -1);
    const resultTopics = [...results, topics.TOPIC_DEAD_LETTER];
    const collectorCaughtUp = await catchUp(admin, collector, resultTopics, 60_000);

    return assembleReport({
      policy,
      scenario,
      runId,
      started,
      loadStart,
      faultsOffAt,
      options,
      workload,
      expected,
      produced,
      input: await auditInput(kafka, admin, inputs),
      faultLog,
      plan,
      pool,
      vendor,
      collector,
      rebalances: { ...watch.fromBrokerLog(), membershipChanges: watch.membershipChanges },
      drain: { complete, lagAtDrainEnd, lagAfterStop, collectorCaughtUp },
    });
  } finally {
    watch.stop();
    pool.stopWatching();
    await pool.terminateAll('cleanup').catch(() => undefined);
    await collector.stop();
    await vendor.stop();
  }
}

/**
 * The run's topics. On the cluster each is replicated three times; in a broker-loss run the
 * node coordinating the run's group is made the preferred leader of every input and result
 * partition first, so that one kill takes the group's coordinator and every partition it reads
 * and writes to at once, the harshest loss of one broker.
 */
async function createRunTopics(infra: ChaosInfra, runId: string, scenario: Scenario) {
  const { admin, options, backend } = infra;
  const topics = runTopics(runId);
  const inputs = [topics.TOPIC_USER_SIGNED_UP, topics.TOPIC_ORDER_PLACED];
  const results = [
    topics.TOPIC_CAMPAIGN_SENT,
    topics.TOPIC_CONTACT_LIST_CREATED,
    topics.TOPIC_DISPATCH_FAILED,
  ];
  let leader: number | undefined;
  if (backend.kind === 'cluster' && scenario === 'broker-loss') {
    await waitForCoordinator(infra.kafka, [runId]);
    leader = await backend.cluster.coordinatorOf(admin, runId);
  }
  const spread: TopicLayout = backend.kind === 'cluster' ? { cluster: {} } : {};
  const placed: TopicLayout = backend.kind === 'cluster' ? { cluster: { leader } } : {};
  // Topics the service reads or writes that the load does not use: it refuses to start without them.
  const internal = [
    topics.TOPIC_CAMPAIGN_REQUESTED,
    topics.TOPIC_CONTACT_LIST_REQUESTED,
    topics.TOPIC_SUPPRESSION_REQUESTED,
    topics.TOPIC_UNSUBSCRIBED,
  ];
  await createTopicsPatiently(admin, inputs, options.partitions, placed);
  await createTopicsPatiently(admin, internal, options.partitions, spread);
  // Broker time on every result: one clock for "when did the last result arrive".
  const brokerTime = { logAppendTime: true };
  await createTopicsPatiently(admin, results, options.partitions, { ...placed, ...brokerTime });
  const deadLetter = [topics.TOPIC_DEAD_LETTER];
  await createTopicsPatiently(admin, deadLetter, options.partitions, { ...spread, ...brokerTime });
  return { topics, inputs, results, leader };
}
