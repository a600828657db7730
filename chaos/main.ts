import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import type { Admin } from 'kafkajs';
import { join, resolve } from 'node:path';
import { benchKafka } from '../bench/infra/bench-kafka';
import { killAllChildren } from '../bench/infra/child-process';
import { imageRuntime } from '../bench/infra/image-runtime';
import { repoRoot } from '../bench/infra/repo-root';
import { machine } from '../bench/report/run-meta';
import { parseOptions } from './config/chaos-options';
import { ChaosBroker } from './infra/chaos-broker';
import { ChaosCluster } from './infra/chaos-cluster';
import { ChaosRedis } from './infra/chaos-redis';
import { serviceBuild } from './infra/service-build';
import { InstancePool } from './service/instance-pool';
import type { ChaosReport, ChaosRunReport } from './report/chaos-report';
import { summaryTable } from './report/summary-table';
import { writeReport } from './report/write-report';
import { runPolicy, type Backend } from './run/policy-run';

/**
 * `npm run chaos`: starts its own broker and Redis (with `--cluster`: three brokers and a Redis
 * under Sentinel), runs the load with seeded faults under each ambiguity policy (and scenario),
 * writes chaos/results/ and exits non-zero when a rule of the service broke. Everything it
 * started is stopped by its own handle at the end, on failure and on Ctrl-C.
 */
async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  const root = repoRoot();
  const started = new Date();
  const stamp = started.toISOString().slice(0, 16).replace(/[-:]/g, '');
  const say = (message: string) => {
    const s = Math.round((Date.now() - started.getTime()) / 1000);
    console.log(
      `[chaos ${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}] ${message}`,
    );
  };
  // Per broker port, so that two invocations on different ports share nothing.
  const kafkaPort = options.cluster ? options.clusterPorts.kafka : options.kafkaPort;
  const build = serviceBuild(root, options.srcRef, `service-${kafkaPort}`);
  // The image's heap limits unless --service-env replaces them (serviceEnv spreads it last).
  const image = imageRuntime();
  const runtime = { ...image, nodeOptions: options.serviceEnv.NODE_OPTIONS ?? image.nodeOptions };
  const broker = new ChaosBroker(options.kafkaPort);
  const redis = new ChaosRedis(options.redisPort);
  // Started (or being started) in --cluster mode; a Ctrl-C while it starts stops what came up.
  let cluster: Promise<ChaosCluster> | undefined;
  let stopping: Promise<void> | undefined;
  const shutdown = () =>
    (stopping ??= (async () => {
      InstancePool.haltAll();
      killAllChildren();
      if (cluster) {
        await cluster.then((c) => c.stop()).catch(() => undefined);
        return;
      }
      await redis.stop().catch(() => undefined);
      await broker.stop().catch(() => undefined);
    })());
  process.once('SIGINT', () => void shutdown().finally(() => process.exit(130)));
  process.once('SIGTERM', () => void shutdown().finally(() => process.exit(143)));

  const meta: ChaosReport['meta'] = {
    startedAt: started.toISOString(),
    finishedAt: '',
    durationSeconds: 0,
    command: [
      'npm run chaos',
      ...(process.argv.length > 2 ? ['--', ...process.argv.slice(2)] : []),
    ].join(' '),
    srcCommit: build.srcCommit,
    headCommit: git(root, ['rev-parse', '--short', 'HEAD']),
    machine: machine(),
    loadAverageAtStart: loadavg()[0],
    runtime,
    options,
  };
  const runs: ChaosRunReport[] = [];
  let admin: Admin | undefined;
  try {
    let backend: Backend;
    if (options.cluster) {
      const p = options.clusterPorts;
      say(
        `src ${meta.srcCommit}; starting three brokers on ${p.kafka}, ${p.kafka + 2}, ${p.kafka + 4}, ` +
          `Redis on ${p.redis}-${p.redis + 2} and Sentinels on ${p.sentinel}-${p.sentinel + 2}, ` +
          `or a Redis Cluster on ${p.redisCluster}-${p.redisCluster + 5}, as the scenarios need`,
      );
      cluster = ChaosCluster.start(p, options.scenarios);
      backend = { kind: 'cluster', cluster: await cluster };
    } else {
      say(
        `src ${meta.srcCommit}; ${options.graceful ? 'a graceful round (SIGTERM restarts, no kill -9); ' : ''}starting the broker on ${options.kafkaPort} and Redis on ${options.redisPort}`,
      );
      await broker.start();
      await redis.start();
      backend = { kind: 'single', broker, redis };
    }
    const brokers = backend.kind === 'single' ? broker.brokers : backend.cluster.brokers;
    const kafka = benchKafka(brokers, 'mailbridge-chaos');
    admin = kafka.admin();
    await admin.connect();
    const logRoot = join(root, '.cache/chaos/logs', `${stamp}-${kafkaPort}`);
    const infra = {
      options,
      backend,
      kafka,
      admin,
      serviceScript: build.script,
      runtime,
      logRoot,
      say,
    };
    for (const [scenario, policy] of options.scenarios.flatMap((sc) =>
      options.policies.map((po) => [sc, po] as const),
    )) {
      runs.push(await runPolicy(infra, policy, scenario));
      const finished = new Date();
      meta.finishedAt = finished.toISOString();
      meta.durationSeconds = Math.round((finished.getTime() - started.getTime()) / 1000);
      const files = writeReport({ meta, runs }, resolve(root, options.outDir), stamp);
      say(`wrote ${files.join(', ')}`);
    }
  } finally {
    await admin?.disconnect().catch(() => undefined);
    await shutdown();
  }
  console.log(`\n${summaryTable(runs, options.shutdownTimeoutMs)}\n`);
  for (const run of runs) {
    const name = run.scenario && run.scenario !== 'single' ? `${run.scenario}/` : '';
    for (const failure of run.failures) console.log(`FAIL [${name}${run.policy}] ${failure}`);
  }
  return runs.some((r) => r.failures.length > 0) ? 1 : 0;
}

function git(root: string, args: string[]): string {
  try {
    return execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    killAllChildren();
    process.exit(2);
  },
);
