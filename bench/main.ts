// The locales section reads the service's configuration, whose decorators need it.
import 'reflect-metadata';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { Redis } from 'ioredis';
import { parseOptions, type BenchOptions } from './config/bench-options';
import { benchKafka, createTopics, topicSize } from './infra/bench-kafka';
import { startBroker } from './infra/broker';
import { killAllChildren } from './infra/child-process';
import { repoRoot } from './infra/repo-root';
import type {
  BenchReport,
  LatencyResult,
  LocaleResult,
  SuppressionResult,
  ThroughputResult,
} from './report/result-types';
import { fmt, headline, ms } from './report/summary';
import { commit, machine, notes } from './report/run-meta';
import { allocationSummary, eventsHandled, profileSummary } from './report/profile-summary';
import { readSizing } from './report/sizing';
import { writeReport } from './report/write-report';
import { runBacklog } from './phases/backlog.runner';
import type { BenchContext, EventPhase, InputTopics } from './phases/bench-context';
import { benchRedisUrl, floorProfileDir, profileDir } from './phases/phase-process';
import { HostCpu } from './measure/host-cpu';
import { runHttpCeiling } from './phases/http.runner';
import { runLatency } from './phases/latency.runner';
import { runLocaleMix, serviceMaxRecipients } from './phases/locales.runner';
import { runSuppressionList, SUPPRESSION_LIST_SIZES } from './phases/suppression.runner';
import { runThroughput } from './phases/throughput.runner';
import { fixedLatency, SLOW_WITH_TAIL } from './vendor/latency-profile';
import { VendorHandle } from './vendor/vendor.handle';
import {
  LOCALE_MIXES,
  localeSignUp,
  orderPlaced,
  userSignedUp,
  type LocaleMix,
} from './workloads/event-factory';
import { preload } from './workloads/preload';

const LATENCY_PHASES: EventPhase[] = ['ceiling-consume-produce', 'naive', 'mailbridge'];

/**
 * `npm run bench`: starts a broker and the vendor sandbox, preloads the workloads once, runs
 * every phase `--reps` times in alternating order, then mailbridge on single- and mixed-locale
 * sign-ups, the latency run and the backlog test, and writes bench/results/. See
 * docs/benchmark.md.
 */
async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2), process.env);
  const root = repoRoot();
  const started = new Date();
  const stamp = started.toISOString().slice(0, 16).replace(':', '');
  const log = (message: string) => {
    const s = Math.round((Date.now() - started.getTime()) / 1000);
    console.log(
      `[bench ${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}] ${message}`,
    );
  };
  if (!existsSync(join(root, 'dist/main.js')))
    throw new Error('dist/main.js is missing: run `npm run build`');
  const orderSupported = declaresOrderTopic(root);
  const load = loadavg()[0];

  log(options.brokers ? `using Kafka at ${options.brokers}` : 'starting the bench broker');
  const broker = await startBroker(options.brokers, options.kafkaPort);
  let vendor: VendorHandle | undefined;
  // Only for Redis' own CPU time (INFO cpu): one try, no reconnecting; without it, no figure.
  const redis = new Redis(benchRedisUrl(), {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);
  const shutdown = async () => {
    redis.disconnect();
    killAllChildren();
    await vendor?.stop().catch(() => undefined);
    await broker.stop().catch(() => undefined);
  };
  process.once('SIGINT', () => void shutdown().finally(() => process.exit(130)));
  process.once('SIGTERM', () => void shutdown().finally(() => process.exit(143)));

  const kafka = benchKafka(broker.brokers);
  const admin = kafka.admin();
  try {
    await admin.connect();
    vendor = await VendorHandle.start(fixedLatency(options.vendorLatencyMs));
    const redisReached = await redis.connect().then(
      () => true,
      (error: Error) => {
        log(`Redis did not answer (${error.message}): no figures of its CPU`);
        return false;
      },
    );
    const runId = `bench-${stamp.replace(/[^0-9T]/g, '')}-${process.pid}`;
    const ctx: BenchContext = {
      options,
      kafka,
      admin,
      brokers: broker.brokers,
      vendor,
      hostCpu: new HostCpu({
        brokerPid: broker.pid,
        vendorPid: vendor.monitor.pid,
        redis: redisReached ? redis : undefined,
      }),
      runId,
      emptyTopic: `${runId}.empty`,
      orderSupported,
      log,
    };
    const input: InputTopics = {
      user: `${runId}.user.signed_up.v1`,
      order: `${runId}.order.placed.v1`,
    };
    const backlogTopic = `${runId}.backlog.user.signed_up.v1`;
    const localeTopics = localeTopicsOf(runId);
    await createTopics(
      admin,
      [input.user, input.order, ctx.emptyTopic, backlogTopic, ...Object.values(localeTopics)],
      options.partitions,
    );
    const sizes = await preloadAll(ctx, input, backlogTopic, localeTopics);

    const throughput: ThroughputResult[] = [];
    for (const workload of ['user', 'order'] as const) {
      if (!options.sections.includes(workload)) continue;
      const expected = sizes.get(workload === 'user' ? input.user : input.order) ?? 0;
      const only: InputTopics =
        workload === 'user'
          ? { user: input.user, order: ctx.emptyTopic }
          : { user: ctx.emptyTopic, order: input.order };
      for (let rep = 1; rep <= options.reps; rep++) {
        for (const phase of alternate(options.phases, rep)) {
          if (phase === 'ceiling-http') {
            if (workload !== 'user') continue; // the vendor's ceiling: sign-ups' requests
            for (const recipients of [1, options.httpBatch]) {
              throughput.push(logged(ctx, await runHttpCeiling(ctx, recipients, rep)));
            }
            continue;
          }
          throughput.push(
            logged(ctx, await runThroughput(ctx, phase, workload, only, expected, rep)),
          );
        }
      }
    }

    // The same service on the same broker, one workload after the other and the other first in
    // the next repetition, so that drift on a shared machine favours neither.
    const locales: LocaleResult[] = [];
    if (runsLocales(options)) {
      const maxRecipients = serviceMaxRecipients(options);
      if (maxRecipients === null)
        log('locales: BATCH_MAX_RECIPIENTS not read from the config; no count of full requests');
      for (let rep = 1; rep <= options.reps; rep++) {
        for (const mix of alternate(LOCALE_MIXES, rep)) {
          const topic = localeTopics[mix];
          const expected = sizes.get(topic) ?? 0;
          const result = await runLocaleMix(ctx, mix, topic, expected, rep, maxRecipients);
          log(
            `locales r${rep} ${mix}: ${fmt(result.eventsPerSecond)} sign-ups/s, ` +
              `${result.events}/${expected} (${result.status}), ` +
              `${result.vendor.campaignRequests} requests (${result.fullRequests ?? '?'} full), ` +
              `${result.vendor.recipientsPerRequest?.toFixed(1) ?? 'n/a'} rcpt/req, ` +
              `${result.cpuMsPer1kEvents?.toFixed(0) ?? 'n/a'} CPU ms/1k` +
              (result.note ? ` — ${result.note}` : ''),
          );
          locales.push(result);
        }
      }
    }

    // The same service over the same sign-ups, with an empty suppression list and a filled one,
    // alternating as the locales do: the CPU the check costs as the list grows.
    const suppression: SuppressionResult[] = [];
    if (runsSuppression(options)) {
      if (!redisReached) throw new Error('the suppression section writes its lists to Redis');
      for (let rep = 1; rep <= options.reps; rep++) {
        for (const entries of alternate(SUPPRESSION_LIST_SIZES, rep)) {
          const expected = sizes.get(input.user) ?? 0;
          const r = await runSuppressionList(ctx, redis, entries, input.user, expected, rep);
          log(
            `suppression r${rep} ${entries.toLocaleString('en-US')} entries: ${fmt(r.eventsPerSecond)} sign-ups/s, ` +
              `${r.events}/${expected} (${r.status}), ${r.suppressedSignUps} suppressed, ` +
              `${r.cpuMsPer1kEvents?.toFixed(0) ?? 'n/a'} CPU ms/1k` +
              (r.note ? ` — ${r.note}` : ''),
          );
          suppression.push(r);
        }
      }
    }

    const latency: LatencyResult[] = [];
    const latencyPhases = options.sections.includes('latency')
      ? LATENCY_PHASES.filter((p) => options.phases.includes(p))
      : [];
    // Nothing has consumed from this broker yet (`--only latency`): its JVM is cold, and the
    // first latency phase would pay for it (docs/benchmark.md, "Latency run").
    const warmBroker = latencyPhases.length > 0 && throughput.length === 0 && locales.length === 0;
    if (warmBroker) {
      const warm = await runLatency(ctx, 'ceiling-consume-produce', 0);
      log(
        `latency: broker warmed by a ceiling round (p99 ${ms(warm.latencyMs.p99)}, not reported)`,
      );
    }
    for (let rep = 1; rep <= options.reps; rep++) {
      for (const phase of alternate(latencyPhases, rep)) {
        const result = await runLatency(ctx, phase, rep);
        log(
          `latency ${phase} r${rep}: p50 ${ms(result.latencyMs.p50)}, p99 ${ms(result.latencyMs.p99)}, ` +
            `${result.delivered}/${result.sent} (${result.status})${result.note ? ` ${result.note}` : ''}`,
        );
        latency.push(result);
      }
    }

    let backlog: BenchReport['backlog'];
    if (options.sections.includes('backlog') && options.phases.includes('mailbridge')) {
      log(
        `backlog: mailbridge on ${fmt(options.backlogEvents)} waiting events, vendor ${SLOW_WITH_TAIL.name}`,
      );
      backlog = await runBacklog(ctx, backlogTopic, sizes.get(backlogTopic) ?? 0);
      log(
        `backlog: peak RSS ${backlog.peakRssMb.toFixed(0)} MB, ${fmt(backlog.meanRate)} events/s, ` +
          `${backlog.drained} drained (${backlog.status})`,
      );
    }

    const finished = new Date();
    const report: BenchReport = {
      meta: {
        startedAt: started.toISOString(),
        finishedAt: finished.toISOString(),
        durationSeconds: Math.round((finished.getTime() - started.getTime()) / 1000),
        command: [
          'npm run bench',
          ...(process.argv.length > 2 ? ['--', ...process.argv.slice(2)] : []),
        ].join(' '),
        commit: commit(root),
        machine: machine(),
        scale: options.scale,
        options,
        vendorLatency: `${options.vendorLatencyMs} ms fixed; backlog test ${SLOW_WITH_TAIL.name}`,
        notes: notes(options, load, orderSupported, warmBroker),
      },
      throughput,
      latency,
      backlog,
      ...(locales.length > 0 ? { locales } : {}),
      ...(suppression.length > 0 ? { suppression } : {}),
    };
    const files = writeReport(report, resolve(root, options.outDir), stamp, readSizing(root));
    if (options.profile) {
      const summary = join(resolve(root, options.outDir), `${stamp}.profile.md`);
      // Each workload by stage: the floors' CPU beside mailbridge's, those of them that ran.
      const compare = (['user', 'order'] as const).flatMap((workload) =>
        (['pipeline-floor', 'pipeline-floor-bounded', 'mailbridge'] as const)
          .filter((phase) => throughput.some((r) => r.workload === workload && r.phase === phase))
          .map((phase) => ({
            phase,
            dir: phase === 'mailbridge' ? profileDir(ctx) : floorProfileDir(ctx),
            workload,
            events: eventsHandled(throughput, phase)[workload] ?? 0,
          })),
      );
      writeFileSync(summary, profileSummary(profileDir(ctx), compare));
      files.push(summary);
    }
    if (options.heapProfile) {
      const suffix = options.heapProfile === 'allocated' ? 'alloc' : 'survivors';
      const summary = join(resolve(root, options.outDir), `${stamp}.${suffix}.md`);
      const events = eventsHandled(throughput);
      // The locales runs' profiles are named by their workload (`mixed-locale.mailbridge.r1…`).
      for (const r of locales) events[r.mix] = (events[r.mix] ?? 0) + r.events;
      writeFileSync(summary, allocationSummary(profileDir(ctx), events, options.heapProfile));
      files.push(summary);
    }
    for (const line of headline(report)) log(line);
    log(`wrote ${files.join(', ')}`);
    if (!broker.owned) await deleteRunTopics(ctx);
  } finally {
    await admin.disconnect().catch(() => undefined);
    await shutdown();
  }
}

/** Odd repetitions run the phases in the given order, even ones in reverse. */
function alternate<T>(phases: readonly T[], rep: number): T[] {
  return rep % 2 === 1 ? [...phases] : [...phases].reverse();
}

/** The suppression section runs mailbridge alone too, on the user workload's events. */
function runsSuppression(options: BenchOptions): boolean {
  return options.sections.includes('suppression') && options.phases.includes('mailbridge');
}

/** The locales section runs mailbridge alone, like the backlog test. */
function runsLocales(options: BenchOptions): boolean {
  return options.sections.includes('locales') && options.phases.includes('mailbridge');
}

/** Each locales workload's input topic. */
function localeTopicsOf(runId: string): Record<LocaleMix, string> {
  const topics = LOCALE_MIXES.map((mix) => [mix, `${runId}.${mix}.user.signed_up.v1`]);
  return Object.fromEntries(topics) as Record<LocaleMix, string>;
}

/** Preloads each workload once; returns what each topic really holds, which phases then expect. */
async function preloadAll(
  ctx: BenchContext,
  input: InputTopics,
  backlogTopic: string,
  localeTopics: Record<LocaleMix, string>,
): Promise<Map<string, number>> {
  const sizes = new Map<string, number>();
  const { options } = ctx;
  const jobs: Array<[string, string, number, typeof userSignedUp]> = [];
  if (options.sections.includes('user') || runsSuppression(options))
    jobs.push(['user.signed_up.v1', input.user, options.userEvents, userSignedUp]);
  if (options.sections.includes('order'))
    jobs.push(['order.placed.v1', input.order, options.orderEvents, orderPlaced]);
  if (options.sections.includes('backlog') && options.phases.includes('mailbridge')) {
    jobs.push(['backlog user.signed_up.v1', backlogTopic, options.backlogEvents, userSignedUp]);
  }
  if (runsLocales(options)) {
    for (const mix of LOCALE_MIXES) {
      const name = `${mix} user.signed_up.v1`;
      jobs.push([name, localeTopics[mix], options.localeEvents, localeSignUp(mix)]);
    }
  }
  for (const [name, topic, count, make] of jobs) {
    const { ms: took } = await preload(ctx.kafka, topic, count, make);
    const size = await topicSize(ctx.admin, topic);
    sizes.set(topic, size);
    ctx.log(`preloaded ${fmt(size)} ${name} in ${(took / 1000).toFixed(1)} s`);
    if (size !== count) ctx.log(`warning: ${topic} holds ${size} events, ${count} were sent`);
  }
  return sizes;
}

function logged(ctx: BenchContext, r: ThroughputResult): ThroughputResult {
  const label = r.variant ? `${r.phase} (${r.variant})` : r.phase;
  const extra = [
    r.vendor.recipientsPerRequest === null
      ? ''
      : `${r.vendor.recipientsPerRequest.toFixed(1)} rcpt/req`,
    r.peakRssMb > 0 ? `RSS ${r.peakRssMb.toFixed(0)} MB` : '',
    r.cpuMsPer1kEvents === null ? '' : `${r.cpuMsPer1kEvents.toFixed(0)} CPU ms/1k`,
  ].filter(Boolean);
  ctx.log(
    `${r.workload} r${r.rep} ${label}: ${fmt(r.eventsPerSecond)} events/s, ${r.events}/${r.expected || r.events} ` +
      `(${r.status}) ${extra.join(', ')}${r.note ? ` — ${r.note}` : ''}`,
  );
  return r;
}

/**
 * Whether the checkout's environment schema declares the order topic: builds from before the
 * order workload do not. The schema was `environment.dto.ts` alone and is now split by area into
 * `environment/` beside it; both are read, so that either kind of checkout is judged alike.
 */
function declaresOrderTopic(root: string): boolean {
  const config = join(root, 'src/config');
  const areas = join(config, 'environment');
  const sources = [
    join(config, 'environment.dto.ts'),
    ...(existsSync(areas) ? readdirSync(areas).map((name) => join(areas, name)) : []),
  ];
  return sources.some((file) => readFileSync(file, 'utf8').includes('TOPIC_ORDER_PLACED'));
}

async function deleteRunTopics(ctx: BenchContext): Promise<void> {
  const topics = (await ctx.admin.listTopics()).filter((t) => t.startsWith(ctx.runId));
  if (topics.length > 0) await ctx.admin.deleteTopics({ topics });
}

main().catch((error: unknown) => {
  console.error(error);
  killAllChildren();
  process.exit(1);
});
