import { auditActions } from '../analysis/action-audit';
import { longestStall } from '../analysis/stall';
import { vendorLedger, type VendorLedger } from '../analysis/vendor-ledger';
import { sigtermBoundMs, verdict, withinBound } from '../analysis/verdict';
import type { ChaosOptions, Policy, Scenario } from '../config/chaos-options';
import type { FaultStep } from '../faults/fault-plan';
import type { FaultLog } from '../faults/fault-runner';
import type { ChaosVendor } from '../infra/chaos-vendor';
import type { InputAudit } from '../observe/input-audit';
import type { ResultCollector } from '../observe/result-collector';
import type { ChaosRunReport } from '../report/chaos-report';
import type { InstancePool } from '../service/instance-pool';
import type { ChaosWorkload, ExpectedAction } from '../traffic/chaos-workload';
import type { ProduceReport } from '../traffic/paced-producer';

export interface RunParts {
  policy: Policy;
  scenario: Scenario;
  runId: string;
  started: number;
  loadStart: number;
  faultsOffAt: number;
  options: ChaosOptions;
  workload: ChaosWorkload;
  expected: ExpectedAction[];
  produced: ProduceReport;
  input: InputAudit;
  faultLog: FaultLog;
  plan: FaultStep[];
  pool: InstancePool;
  vendor: ChaosVendor;
  collector: ResultCollector;
  rebalances: { started: number; stabilized: number; membershipChanges: number };
  drain: {
    complete: boolean;
    lagAtDrainEnd: number;
    lagAfterStop: number;
    collectorCaughtUp: boolean;
  };
}

/** Folds what a run observed into its report, with the verdict. Times are relative to the load's start. */
export function assembleReport(p: RunParts): ChaosRunReport {
  const { options, vendor, pool } = p;
  const ledger = vendorLedger(vendor.requests, vendor.unanswered, p.faultsOffAt);
  // Only events that reached the input topics are the service's to answer.
  const given = p.expected.filter((a) => p.input.ids.has(a.eventId));
  const missingEvents = new Set(
    p.expected.map((a) => a.eventId).filter((id) => !p.input.ids.has(id)),
  );
  const audit = auditActions(given, p.collector.byAction, ledger, p.policy, p.faultsOffAt);
  const rel = (at: number) => at - p.loadStart;
  const { timeline, ...faultCounts } = p.faultLog;
  const bound = sigtermBoundMs(options.shutdownTimeoutMs, options.graceful);
  const lastResult = audit.lastFirstResultTs;
  const report: Omit<ChaosRunReport, 'failures'> = {
    policy: p.policy,
    scenario: p.scenario,
    runId: p.runId,
    graceful: options.graceful,
    sigtermBoundMs: bound,
    startedAt: new Date(p.started).toISOString(),
    durationSeconds: Math.round((Date.now() - p.started) / 1000),
    load: {
      signups: p.workload.signups,
      orders: p.workload.orders,
      rate: options.rate,
      produceSeconds: Math.round(p.produced.seconds),
      resentBatches: p.produced.resentBatches,
      inputRecords: p.input.records,
      eventsMissingFromInput: missingEvents.size,
      eventsDuplicatedInInput: p.input.duplicated,
    },
    faults: faultsSection(p, ledger, faultCounts),
    sigterms: pool.terminations.map((t) => ({
      ...t,
      atMs: rel(t.at),
      withinBound: withinBound(t.exitMs, t.exit, bound),
    })),
    vendor: vendorSection(p, ledger),
    audit,
    counters: sumCounters(pool),
    drain: {
      faultsOffAtMs: rel(p.faultsOffAt),
      complete: p.drain.complete,
      lastFaultToLastResultSeconds:
        lastResult > 0 ? Math.max(0, (lastResult - p.faultsOffAt) / 1000) : null,
      lagAtDrainEnd: p.drain.lagAtDrainEnd,
      lagAfterStop: p.drain.lagAfterStop,
      collectorCaughtUp: p.drain.collectorCaughtUp,
      collectorRestarts: p.collector.restarts,
    },
    peakRssMb: pool.peakRssMb(),
    instanceStarts: pool.starts(),
    timeline,
  };
  return { ...report, failures: verdict(report, options.shutdownTimeoutMs) };
}

/** What was planned, what happened, and what the sandbox did while the faults were on. */
function faultsSection(
  p: RunParts,
  ledger: VendorLedger,
  faultCounts: Omit<FaultLog, 'timeline'>,
): ChaosRunReport['faults'] {
  const { options, vendor, pool } = p;
  const rel = (at: number) => at - p.loadStart;
  const planned = (kind: FaultStep['kind']) => p.plan.filter((s) => s.kind === kind).length;
  // Every result's broker time, sorted: the stall after a fault is the longest gap in them.
  const times = [...p.collector.byAction.values()]
    .flatMap((records) => records.map((r) => r.ts))
    .sort((x, y) => x - y);
  const stall = (atMs: number) => longestStall(times, p.loadStart + atMs) ?? null;
  return {
    ...faultCounts,
    brokerKills: faultCounts.brokerKills.map((k) => ({ ...k, stallMs: stall(k.atMs) })),
    redisFailovers: faultCounts.redisFailovers.map((f) => ({ ...f, stallMs: stall(f.atMs) })),
    brokerKillsPlanned: planned('broker-kill'),
    redisFailoversPlanned: planned('redis-failover'),
    killsPlanned: planned('kill'),
    sigtermRestartsPlanned: planned('sigterm-restart'),
    brokerRestartsPlanned: planned('broker-restart'),
    redisRestartsPlanned: planned('redis-restart'),
    rebalances: p.rebalances,
    crashes: pool.crashes.map((c) => ({ atMs: rel(c.at), slot: c.slot, exit: c.exit })),
    sandbox: {
      faultShareConfigured: options.faultShare,
      faultRateDuringLoad: ledger.receivedDuringLoad
        ? ledger.faultedDuringLoad / ledger.receivedDuringLoad
        : 0,
      receivedDuringLoad: ledger.receivedDuringLoad,
      byFault: ledger.byFault,
      unanswered: {
        reset: vendor.unanswered.filter((u) => u.outcome === 'reset').length,
        abandoned: vendor.unanswered.filter((u) => u.outcome === 'abandoned').length,
      },
    },
  };
}

/** What the vendor accepted: lists per name (created twice or not), and addresses of no event. */
function vendorSection(p: RunParts, ledger: VendorLedger): ChaosRunReport['vendor'] {
  const stats = p.vendor.stats;
  const known = new Set(p.expected.map((a) => a.email.toLowerCase()));
  const foreign = [...ledger.campaignAccepted.keys(), ...ledger.listAccepted.keys()].filter(
    (e) => !known.has(e),
  );
  const twice = [...ledger.listsByName].filter(([, n]) => n > 1);
  return {
    received: stats.received,
    recordComplete: stats.recorded === stats.received,
    acceptedCampaignRequests: ledger.acceptedCampaignRequests,
    acceptedListRequests: ledger.acceptedListRequests,
    recipientsAccepted: stats.recipientsAccepted,
    listNames: ledger.listsByName.size,
    listsCreatedTwice: twice.length,
    listExtraCreations: twice.reduce((sum, [, n]) => sum + n - 1, 0),
    listsCreatedTwiceExamples: twice.slice(0, 5).map(([name, n]) => `${name} ×${n}`),
    foreignAddresses: foreign.length,
  };
}

/** Sums of the last reading of each process; undefined when no process had the counter. */
function sumCounters(pool: InstancePool): ChaosRunReport['counters'] {
  const counters: ChaosRunReport['counters'] = {};
  for (const reading of pool.counters.values()) {
    if (reading.ambiguousSends !== undefined)
      counters.ambiguousSends = (counters.ambiguousSends ?? 0) + reading.ambiguousSends;
    if (reading.possibleDuplicateSends !== undefined) {
      counters.possibleDuplicateSends =
        (counters.possibleDuplicateSends ?? 0) + reading.possibleDuplicateSends;
    }
  }
  return counters;
}
