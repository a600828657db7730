import { createTopics, sleep, waitForStableGroup } from '../infra/bench-kafka';
import { howEnded, stopChild } from '../infra/child-process';
import { ProcessMonitor } from '../infra/process-monitor';
import { percentiles } from '../measure/percentiles';
import { ResultCollector } from '../measure/result-collector';
import { MB, type LatencyResult } from '../report/result-types';
import { producePaced } from '../workloads/paced-producer';
import { allResultTopics, resultTopics, type BenchContext, type EventPhase } from './bench-context';
import { startPhaseProcess } from './phase-process';

/**
 * Event-to-result latency at a fixed input rate: the phase is started on a fresh, empty topic,
 * and once its group is Stable the harness publishes events at `latencyRate` for
 * `latencyWarmupSeconds` and then, without a break, for `latencySeconds`. Only the events after
 * the warm-up are measured: the first second of a new topic pays for metadata, connections and
 * JIT in the producer, the broker and the phase alike, which is not the steady state the figure
 * is about (every phase gets the same warm-up). Latency is the broker's write time of the result
 * minus the event's creation time. Measured events without a result by the end of the grace
 * period count as slower than any measured one (see `percentiles`).
 */
export async function runLatency(
  ctx: BenchContext,
  phase: EventPhase,
  rep: number,
): Promise<LatencyResult> {
  const { latencyRate, latencySeconds, latencyWarmupSeconds, latencyGraceSeconds, partitions } =
    ctx.options;
  const runName = `latency.${phase}.r${rep}`;
  const input = `${ctx.runId}.${runName}.in`;
  const topics = resultTopics(ctx, runName);
  await createTopics(ctx.admin, [input], partitions);
  await createTopics(ctx.admin, allResultTopics(topics), partitions, { logAppendTime: true });
  const sentAt = new Map<string, number>();
  const collector = await new ResultCollector(ctx.kafka, [topics.sent], { sentAt }).start();
  const proc = await startPhaseProcess(
    ctx,
    phase,
    runName,
    { user: input, order: ctx.emptyTopic },
    topics,
    'user',
  );
  const monitor = new ProcessMonitor(proc.started.pid).start();
  const alive = () => howEnded(proc.started) === undefined;
  const base = { phase, rep, inputRate: latencyRate, warmupSeconds: latencyWarmupSeconds };
  try {
    await waitForStableGroup(ctx.admin, proc.groupId, 60_000, alive);
    // A moment for the first fetch requests to be in flight, as they would be in production.
    await sleep(500);
    const cpuStart = monitor.sample()?.cpuMs ?? 0;
    const started = Date.now();
    await producePaced(ctx.kafka, input, latencyRate, latencySeconds, sentAt, latencyWarmupSeconds);
    const sent = sentAt.size;
    const caughtUp = await collector.waitUntil(
      () => collector.latenciesMs.length >= sent,
      latencyGraceSeconds * 1000,
      proc.started.exited,
    );
    const cpuEnd = monitor.sample()?.cpuMs ?? cpuStart;
    const latencies = collector.latenciesMs.length;
    const delivered = Math.min(sent, latencies);
    const all = collector.count(topics.sent);
    const end = collector.lastTs() || Date.now();
    return {
      ...base,
      status: !alive() ? 'failed' : caughtUp ? 'complete' : 'capped',
      note: !alive()
        ? `process exited early (${howEnded(proc.started)}); see ${proc.started.logFile}`
        : caughtUp
          ? undefined
          : `saturated: ${delivered} of ${sent} results within ${latencyGraceSeconds} s after the input stopped`,
      sent,
      delivered,
      outputRate: all > 0 ? (all * 1000) / Math.max(1, end - started) : 0,
      latencyMs: percentiles(collector.latenciesMs, sent - delivered),
      peakRssMb: monitor.peakRssBytes / MB,
      cpuMsPer1kEvents: all > 0 ? ((cpuEnd - cpuStart) * 1000) / all : null,
    };
  } catch (error) {
    return {
      ...base,
      status: 'failed',
      note: `${(error as Error).message} (log: ${proc.started.logFile})`,
      sent: sentAt.size,
      delivered: 0,
      outputRate: 0,
      latencyMs: { p50: null, p95: null, p99: null, max: null },
      peakRssMb: monitor.peakRssBytes / MB,
      cpuMsPer1kEvents: null,
    };
  } finally {
    monitor.stop();
    await stopChild(proc.started, 3_000);
    await collector.stop();
  }
}
