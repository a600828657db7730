import { createTopics, sleep, waitForStableGroup } from '../infra/bench-kafka';
import { howEnded, nextMessage, stopChild } from '../infra/child-process';
import { ProcessMonitor } from '../infra/process-monitor';
import { sharesPer1k } from '../measure/host-cpu';
import { ResultCollector } from '../measure/result-collector';
import { MB, type ThroughputResult, type VendorFigures } from '../report/result-types';
import { emptyStats, type VendorStats } from '../vendor/vendor-stats';
import {
  allResultTopics,
  resultTopics,
  type BenchContext,
  type EventPhase,
  type InputTopics,
  type WorkloadName,
} from './bench-context';
import type { ConsumedReport } from './child-messages';
import { startPhaseProcess } from './phase-process';

const JOIN_TIMEOUT_MS = 60_000;
/** After the last confirmation, contact-list results count as settled once quiet this long. */
const SETTLE_MS = 1_000;

/** The name of one repetition of one phase in its topics, group, log and profile files. */
export function phaseRunName(name: string, phase: EventPhase, rep: number): string {
  return `${name}.${phase}.r${rep}`;
}

/**
 * Runs one event phase over a preloaded workload. The window opens when the phase's consumer
 * group is Stable (the earliest it can fetch) and closes at the broker time of its last event
 * outcome (sent, failed or dead-lettered; ceiling-consume, which writes none: when it had
 * consumed the last record). Contact-list results are awaited after it and timed on their own.
 * CPU is read from /proc when the window opens, so start-up work (Nest bootstrapping, group join)
 * is not charged, and once the contact-list results are in, so the work of producing them is;
 * the host's (the machine, the broker, Redis, the vendor host, the harness) at the same points.
 */
export async function runThroughput(
  ctx: BenchContext,
  phase: EventPhase,
  workload: WorkloadName,
  input: InputTopics,
  expected: number,
  rep: number,
  /**
   * The run's name in its topics, group, log and profile files, when not the workload's: a
   * section that runs the same workload on other input (the locales) must not meet its runs.
   */
  name: string = workload,
): Promise<ThroughputResult> {
  const runName = phaseRunName(name, phase, rep);
  const base = { workload, phase, rep, expected };
  if (phase === 'mailbridge' && workload === 'order' && !ctx.orderSupported) {
    return unsupported(base, 'not supported by this build (no TOPIC_ORDER_PLACED in its config)');
  }
  const capMs =
    (phase === 'naive' ? ctx.options.naiveSeconds : ctx.options.phaseTimeoutSeconds) * 1000;
  const topics = resultTopics(ctx, runName);
  await createTopics(ctx.admin, allResultTopics(topics), ctx.options.partitions, {
    logAppendTime: true,
  });
  const collector = await new ResultCollector(ctx.kafka, allResultTopics(topics), {
    checkDuplicates: true,
  }).start();
  await ctx.vendor.stats(true);
  const proc = await startPhaseProcess(ctx, phase, runName, input, topics, workload, expected);
  const monitor = new ProcessMonitor(proc.started.pid).start();
  const alive = () => howEnded(proc.started) === undefined;
  try {
    const doneMessage =
      phase === 'ceiling-consume'
        ? nextMessage<ConsumedReport>(proc.started, 'done', JOIN_TIMEOUT_MS + capMs)
        : undefined;
    doneMessage?.catch(() => undefined); // read below; a late failure must not go unhandled
    const windowStart = await waitForStableGroup(ctx.admin, proc.groupId, JOIN_TIMEOUT_MS, alive);
    const cpuStart = monitor.sample()?.cpuMs ?? 0;
    const hostStart = await ctx.hostCpu.read();
    const deadline = windowStart + capMs;

    let complete: boolean;
    let windowEnd: number;
    let events: number;
    let listsAfterMs: number | undefined;
    if (doneMessage) {
      const report = await Promise.race([doneMessage, sleep(capMs).then(() => undefined)]);
      complete = report !== undefined;
      events = report?.count ?? 0;
      windowEnd = report?.lastAt ?? Date.now();
    } else {
      const outcomes = () =>
        collector.count(topics.sent) +
        collector.count(topics.failed) +
        collector.count(topics.deadLetter);
      complete = await collector.waitUntil(
        () => outcomes() >= expected,
        deadline - Date.now(),
        proc.started.exited,
      );
      complete &&= outcomes() >= expected;
      // The window closes at the last event's outcome. An order's contact list is created when its
      // time window closes (CONTACT_LIST_WINDOW_MS), which is a clock, not a throughput: how
      // long after the last outcome the lists came is reported beside the rate, not in it.
      windowEnd = collector.lastTs([topics.sent, topics.failed, topics.deadLetter]);
      if (workload === 'order') {
        await settle(collector, topics.contactList, expected, deadline);
        const listsEnd = collector.lastTs([topics.contactList]);
        if (listsEnd > 0) listsAfterMs = listsEnd - windowEnd;
      }
      events = outcomes();
    }
    const cpuEnd = monitor.sample()?.cpuMs ?? cpuStart;
    const hostEnd = await ctx.hostCpu.read();
    const windowMs = Math.max(1, windowEnd - windowStart);
    const crashed = !alive();
    // A workload the service refuses measures dead-lettering, not delivery: never a figure.
    const refused = phase === 'ceiling-consume' ? 0 : collector.count(topics.deadLetter);
    return {
      ...base,
      status: crashed || refused > 0 ? 'failed' : complete ? 'complete' : 'capped',
      note: crashed
        ? `process exited early (${howEnded(proc.started)}); see ${proc.started.logFile}`
        : refused > 0
          ? `${refused} events dead-lettered: the workload does not match the contract`
          : complete
            ? undefined
            : `capped at ${capMs / 1000} s: ${events} of ${expected} events`,
      events,
      windowMs,
      eventsPerSecond: events > 0 ? (events * 1000) / windowMs : 0,
      listsAfterMs,
      vendor: vendorFigures(await ctx.vendor.stats(true)),
      peakRssMb: monitor.peakRssBytes / MB,
      cpuMsPer1kEvents: events > 0 ? ((cpuEnd - cpuStart) * 1000) / events : null,
      hostCpuMsPer1k: sharesPer1k(hostStart, hostEnd, cpuEnd - cpuStart, events),
      outcomes:
        phase === 'ceiling-consume'
          ? undefined
          : {
              sent: collector.count(topics.sent),
              failed: collector.count(topics.failed),
              deadLettered: collector.count(topics.deadLetter),
              contactLists: collector.count(topics.contactList),
              duplicates: collector.duplicates,
            },
    };
  } catch (error) {
    return {
      ...unsupported(base, `${(error as Error).message} (log: ${proc.started.logFile})`),
      status: 'failed',
    };
  } finally {
    monitor.stop();
    await stopChild(proc.started, 3_000);
    await collector.stop();
  }
}

/** Waits until the contact-list topic has one result per event or has been quiet a while. */
async function settle(
  collector: ResultCollector,
  topic: string,
  expected: number,
  deadline: number,
): Promise<void> {
  let last = -1;
  while (Date.now() < deadline) {
    const count = collector.count(topic);
    if (count >= expected || count === last) return;
    last = count;
    await sleep(SETTLE_MS);
  }
}

export function vendorFigures(stats: VendorStats): VendorFigures {
  return {
    ...stats,
    recipientsPerRequest:
      stats.campaignRequests > 0 ? stats.campaignRecipients / stats.campaignRequests : null,
  };
}

function unsupported(
  base: Pick<ThroughputResult, 'workload' | 'phase' | 'rep' | 'expected'>,
  note: string,
): ThroughputResult {
  return {
    ...base,
    status: 'unsupported',
    note,
    events: 0,
    windowMs: 0,
    eventsPerSecond: 0,
    vendor: vendorFigures(emptyStats()),
    peakRssMb: 0,
    cpuMsPer1kEvents: null,
  };
}
