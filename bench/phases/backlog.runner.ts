import { createTopics, waitForStableGroup } from '../infra/bench-kafka';
import { howEnded, stopChild } from '../infra/child-process';
import { ProcessMonitor } from '../infra/process-monitor';
import { ResultCollector } from '../measure/result-collector';
import { MB, type BacklogResult } from '../report/result-types';
import { fixedLatency, SLOW_WITH_TAIL } from '../vendor/latency-profile';
import { allResultTopics, resultTopics, type BenchContext } from './bench-context';
import { startPhaseProcess } from './phase-process';
import { vendorFigures } from './throughput.runner';

const SLICE_S = 5;

/**
 * The backlog test: mailbridge starts on `waiting` events with the vendor slow (125 ms and a
 * tail) and drains for at most `backlogSeconds`. Reported: its peak RSS (it must stay bounded
 * however much is waiting), and results written per 5-second slice (they should be steady).
 */
export async function runBacklog(
  ctx: BenchContext,
  backlogTopic: string,
  waiting: number,
): Promise<BacklogResult> {
  const seconds = ctx.options.backlogSeconds;
  const topics = resultTopics(ctx, 'backlog.mailbridge');
  await createTopics(ctx.admin, allResultTopics(topics), ctx.options.partitions, {
    logAppendTime: true,
  });
  const collector = await new ResultCollector(
    ctx.kafka,
    [topics.sent, topics.failed, topics.deadLetter],
    {
      perSecond: true,
    },
  ).start();
  ctx.vendor.setProfile(SLOW_WITH_TAIL);
  await ctx.vendor.stats(true);
  const proc = await startPhaseProcess(
    ctx,
    'mailbridge',
    'backlog.mailbridge',
    { user: backlogTopic, order: ctx.emptyTopic },
    topics,
    'user',
    undefined,
    // Not profiled even with --profile: the CPU profiler keeps every sample in the process, so its
    // RSS climbs through a 300 s drain (254 MB flat without it, 262 → 278 MB with it).
    false,
  );
  const monitor = new ProcessMonitor(proc.started.pid, 250, true).start();
  const alive = () => howEnded(proc.started) === undefined;
  const base = { vendorProfile: SLOW_WITH_TAIL.name, waiting, seconds };
  try {
    const windowStart = await waitForStableGroup(ctx.admin, proc.groupId, 60_000, alive);
    const outcomes = () => allResultTopics(topics).reduce((n, t) => n + collector.count(t), 0);
    const complete = await collector.waitUntil(
      () => outcomes() >= waiting,
      seconds * 1000,
      proc.started.exited,
    );
    const windowEnd = complete ? collector.lastTs() : Date.now();
    const drained = outcomes();
    const timeline = slices(windowStart, windowEnd, collector.perSecond, monitor);
    // The first slice holds the start-up ramp; the steadiness of the drain is judged without it.
    const rates = timeline.slice(1).map((s) => s.ratePerSecond);
    const meanRate = (drained * 1000) / Math.max(1, windowEnd - windowStart);
    const vendor = vendorFigures(await ctx.vendor.stats(true));
    return {
      ...base,
      status: !alive() ? 'failed' : complete ? 'complete' : 'capped',
      note: !alive()
        ? `process exited early (${howEnded(proc.started)}); see ${proc.started.logFile}`
        : complete
          ? undefined
          : `stopped after ${seconds} s with ${waiting - drained} events still waiting`,
      drained,
      meanRate,
      rateCv: coefficientOfVariation(rates),
      projectedDrainSeconds: meanRate > 0 ? waiting / meanRate : null,
      peakRssMb: monitor.peakRssBytes / MB,
      recipientsPerRequest: vendor.recipientsPerRequest,
      timeline,
    };
  } catch (error) {
    return {
      ...base,
      status: 'failed',
      note: `${(error as Error).message} (log: ${proc.started.logFile})`,
      drained: 0,
      meanRate: 0,
      rateCv: null,
      projectedDrainSeconds: null,
      peakRssMb: monitor.peakRssBytes / MB,
      recipientsPerRequest: null,
      timeline: [],
    };
  } finally {
    monitor.stop();
    await stopChild(proc.started, 3_000);
    await collector.stop();
    ctx.vendor.setProfile(fixedLatency(ctx.options.vendorLatencyMs));
  }
}

function slices(
  start: number,
  end: number,
  perSecond: Map<number, number>,
  monitor: ProcessMonitor,
): BacklogResult['timeline'] {
  const timeline: BacklogResult['timeline'] = [];
  // Whole slices only: a sliver at the end would show a rate from a second or two of data.
  for (let from = start; from + SLICE_S * 1000 <= end; from += SLICE_S * 1000) {
    const to = from + SLICE_S * 1000;
    let results = 0;
    for (let s = Math.floor(from / 1000); s < Math.floor(to / 1000); s++)
      results += perSecond.get(s) ?? 0;
    const rss = monitor.samples.filter((x) => x.at >= from && x.at < to).map((x) => x.rssBytes);
    timeline.push({
      atSecond: Math.round((from - start) / 1000),
      ratePerSecond: results / Math.max(1, Math.floor(to / 1000) - Math.floor(from / 1000)),
      rssMb: rss.length > 0 ? Math.max(...rss) / MB : 0,
    });
  }
  return timeline;
}

function coefficientOfVariation(values: number[]): number | null {
  if (values.length < 2) return null;
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  if (mean === 0) return null;
  const variance = values.reduce((a, b) => a + (b - mean) ** 2, 0) / (values.length - 1);
  return Math.sqrt(variance) / mean;
}
