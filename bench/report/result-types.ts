import type { PhaseName } from '../config/bench-options';
import type { HostCpuShares } from '../measure/host-cpu';
import type { Percentiles } from '../measure/percentiles';
import type { WorkloadName } from '../phases/bench-context';
import type { VendorStats } from '../vendor/vendor-stats';
import type { LocaleMix } from '../workloads/event-factory';

/**
 * complete: every event reached an outcome. capped: the phase hit its time cap; figures cover
 * what it finished. unsupported: this build cannot run it. failed: the phase broke (see note).
 */
export type PhaseStatus = 'complete' | 'capped' | 'unsupported' | 'failed';

export interface VendorFigures extends VendorStats {
  /** Campaign recipients per campaign request (null: no request). */
  recipientsPerRequest: number | null;
}

export interface ThroughputResult {
  workload: WorkloadName;
  phase: PhaseName;
  /** ceiling-http only: which body it sent. */
  variant?: string;
  rep: number;
  status: PhaseStatus;
  note?: string;
  expected: number;
  /** Events that reached an outcome in the window (ceiling-http: recipients accepted). */
  events: number;
  windowMs: number;
  eventsPerSecond: number;
  /** Orders: the last contact-list result came this long after the last event outcome. */
  listsAfterMs?: number;
  vendor: VendorFigures;
  peakRssMb: number;
  cpuMsPer1kEvents: number | null;
  /** Where the host's CPU went over the window, per 1,000 events (not for ceiling-http). */
  hostCpuMsPer1k?: HostCpuShares | null;
  outcomes?: {
    sent: number;
    failed: number;
    deadLettered: number;
    contactLists: number;
    duplicates: number;
  };
  http?: {
    requestsPerSecond: number;
    connections: number;
    recipientsPerRequest: number;
    bodyBytes: number;
    latencyMs: { p50: number | null; p99: number | null };
    failed: number;
  };
}

/**
 * One repetition of one workload of the locales section: mailbridge's throughput run over
 * sign-ups whose readers are all in one locale, or in a mix (`bench/workloads/event-factory.ts`).
 */
export interface LocaleResult extends ThroughputResult {
  mix: LocaleMix;
  /** The service's BATCH_MAX_RECIPIENTS: a request with this many recipients was full. */
  maxRecipients: number | null;
  /** Campaign requests that carried `maxRecipients` (null: the maximum is not known). */
  fullRequests: number | null;
}

/**
 * One repetition of the suppression section: mailbridge's throughput run over the user
 * workload with a suppression list of `entries` in its namespace.
 */
export interface SuppressionResult extends ThroughputResult {
  entries: number;
  /** Sign-ups whose address is on the list (scope `all`): sent nothing, answered SUPPRESSED. */
  suppressedSignUps: number;
}

export interface LatencyResult {
  phase: PhaseName;
  rep: number;
  status: PhaseStatus;
  note?: string;
  inputRate: number;
  /** Seconds of input before the measured events, whose results are not measured. */
  warmupSeconds: number;
  /** Measured events (after the warm-up), and those of them with a result. */
  sent: number;
  delivered: number;
  /** Results per second over the run (below the input rate: the phase could not keep up). */
  outputRate: number;
  latencyMs: Percentiles;
  peakRssMb: number;
  cpuMsPer1kEvents: number | null;
}

export interface BacklogResult {
  status: PhaseStatus;
  note?: string;
  vendorProfile: string;
  waiting: number;
  seconds: number;
  drained: number;
  /** Mean results/s from the first result to the end of the window. */
  meanRate: number;
  /** Coefficient of variation of the per-5-second drain rates (0 = perfectly steady). */
  rateCv: number | null;
  projectedDrainSeconds: number | null;
  peakRssMb: number;
  recipientsPerRequest: number | null;
  /** One point per 5 s: results written in that slice and the service's RSS. */
  timeline: Array<{ atSecond: number; ratePerSecond: number; rssMb: number }>;
}

export interface BenchReport {
  meta: {
    startedAt: string;
    finishedAt: string;
    durationSeconds: number;
    command: string;
    commit: string;
    machine: { cpus: number; cpuModel: string; memoryGiB: number; kernel: string; node: string };
    scale: number;
    options: object;
    vendorLatency: string;
    notes: string[];
  };
  throughput: ThroughputResult[];
  latency: LatencyResult[];
  backlog?: BacklogResult;
  /** The locales section: single- and mixed-locale sign-ups, each repetition both. */
  locales?: LocaleResult[];
  /** The suppression section: the user workload with an empty and a filled list, each repetition both. */
  suppression?: SuppressionResult[];
}

export const MB = 1024 * 1024;
