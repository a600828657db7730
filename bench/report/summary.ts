import { HOST_CPU_COLUMNS, type HostCpuShares } from '../measure/host-cpu';
import { median } from '../measure/percentiles';
import type { BenchReport, LatencyResult, ThroughputResult } from './result-types';

/** The median over repetitions of one phase (and variant) of one workload. */
export interface PhaseSummary {
  workload: string;
  phase: string;
  label: string;
  reps: number;
  statuses: string[];
  eventsPerSecond: number;
  minEventsPerSecond: number;
  maxEventsPerSecond: number;
  vendorRequests: number;
  recipientsPerRequest: number | null;
  peakRssMb: number;
  cpuMsPer1kEvents: number | null;
  /** Each source's median over the repetitions that measured the host (null: none did). */
  hostCpu: HostCpuShares | null;
  notes: string[];
}

export interface LatencySummary {
  phase: string;
  reps: number;
  statuses: string[];
  p50: number | null;
  p95: number | null;
  p99: number | null;
  delivered: number;
  sent: number;
  outputRate: number;
  peakRssMb: number;
  cpuMsPer1kEvents: number | null;
  notes: string[];
}

export function summarizeThroughput(results: ThroughputResult[]): PhaseSummary[] {
  const groups = new Map<string, ThroughputResult[]>();
  for (const r of results) {
    const key = `${r.workload}|${r.phase}|${r.variant ?? ''}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  return [...groups.values()].map((runs) => {
    const measured = runs.filter((r) => r.status === 'complete' || r.status === 'capped');
    const rates = measured.map((r) => r.eventsPerSecond);
    const first = runs[0];
    return {
      workload: first.workload,
      phase: first.phase,
      label: first.variant ? `${first.phase} (${first.variant})` : first.phase,
      reps: runs.length,
      statuses: [...new Set(runs.map((r) => r.status))],
      eventsPerSecond: median(rates),
      minEventsPerSecond: Math.min(...rates),
      maxEventsPerSecond: Math.max(...rates),
      vendorRequests: median(
        measured.map((r) => r.vendor.campaignRequests + r.vendor.contactRequests),
      ),
      recipientsPerRequest: nullableMedian(measured.map((r) => r.vendor.recipientsPerRequest)),
      peakRssMb: Math.max(0, ...measured.map((r) => r.peakRssMb)),
      cpuMsPer1kEvents: nullableMedian(measured.map((r) => r.cpuMsPer1kEvents)),
      hostCpu: hostCpuMedians(
        measured.flatMap((r) => (r.hostCpuMsPer1k ? [r.hostCpuMsPer1k] : [])),
      ),
      notes: collapse(runs.map((r) => r.note)),
    };
  });
}

function hostCpuMedians(shares: HostCpuShares[]): HostCpuShares | null {
  if (shares.length === 0) return null;
  const medians = HOST_CPU_COLUMNS.map((column) => [
    column,
    nullableMedian(shares.map((s) => s[column])),
  ]);
  return Object.fromEntries(medians) as HostCpuShares;
}

/** One note per phase: the first repetition's, and how many others had one too. */
function collapse(notes: Array<string | undefined>): string[] {
  const present = notes.filter((n): n is string => n !== undefined);
  if (present.length === 0) return [];
  const others = present.length - 1;
  return [
    `${present[0]}${others > 0 ? ` (and alike in ${others} more repetition${others > 1 ? 's' : ''})` : ''}`,
  ];
}

export function summarizeLatency(results: LatencyResult[]): LatencySummary[] {
  const groups = new Map<string, LatencyResult[]>();
  for (const r of results) groups.set(r.phase, [...(groups.get(r.phase) ?? []), r]);
  return [...groups.values()].map((runs) => {
    const measured = runs.filter((r) => r.status !== 'failed' && r.status !== 'unsupported');
    return {
      phase: runs[0].phase,
      reps: runs.length,
      statuses: [...new Set(runs.map((r) => r.status))],
      // A null percentile (beyond the window) is worse than any number: it wins the median.
      p50: worstMedian(measured.map((r) => r.latencyMs.p50)),
      p95: worstMedian(measured.map((r) => r.latencyMs.p95)),
      p99: worstMedian(measured.map((r) => r.latencyMs.p99)),
      delivered: median(measured.map((r) => r.delivered)),
      sent: median(measured.map((r) => r.sent)),
      outputRate: median(measured.map((r) => r.outputRate)),
      peakRssMb: Math.max(0, ...measured.map((r) => r.peakRssMb)),
      cpuMsPer1kEvents: nullableMedian(measured.map((r) => r.cpuMsPer1kEvents)),
      notes: collapse(runs.map((r) => r.note)),
    };
  });
}

/** mailbridge's median events/s over each other phase's, for one workload. */
export function ratios(
  summaries: PhaseSummary[],
  workload: string,
): Array<{ versus: string; ratio: number }> {
  const of = (label: string) => summaries.find((s) => s.workload === workload && s.label === label);
  const mailbridge = of('mailbridge');
  if (!mailbridge || !Number.isFinite(mailbridge.eventsPerSecond)) return [];
  return summaries
    .filter((s) => s.workload === workload && s.phase !== 'mailbridge' && s.eventsPerSecond > 0)
    .map((s) => ({ versus: s.label, ratio: mailbridge.eventsPerSecond / s.eventsPerSecond }));
}

export function headline(report: BenchReport): string[] {
  const summaries = summarizeThroughput(report.throughput);
  const mb = summaries.find((s) => s.workload === 'user' && s.phase === 'mailbridge');
  const latency = summarizeLatency(report.latency).find((s) => s.phase === 'mailbridge');
  const r = Object.fromEntries(ratios(summaries, 'user').map((x) => [x.versus, x.ratio]));
  const lines: string[] = [];
  if (mb) {
    lines.push(
      `mailbridge: ${fmt(mb.eventsPerSecond)} events/s on user.signed_up.v1 ` +
        `(${ratio(r.naive)} naive, ${ratio(r['ceiling-consume-produce'])} ceiling-consume-produce), ` +
        `${mb.recipientsPerRequest?.toFixed(1) ?? 'n/a'} recipients per request`,
    );
  }
  if (latency)
    lines.push(
      `mailbridge p99 at ${fmt(report.latency[0]?.inputRate ?? 0)} events/s: ${ms(latency.p99)}`,
    );
  if (report.backlog) {
    lines.push(
      `backlog (${fmt(report.backlog.waiting)} waiting, ${report.backlog.vendorProfile}): ` +
        `peak RSS ${report.backlog.peakRssMb.toFixed(0)} MB, drained ${fmt(report.backlog.meanRate)} events/s`,
    );
  }
  return lines;
}

export function fmt(n: number): string {
  if (!Number.isFinite(n)) return 'n/a';
  return n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(1);
}

export function ms(value: number | null): string {
  return value === null ? 'beyond window' : `${value.toLocaleString('en-US')} ms`;
}

export function ratio(value: number | undefined): string {
  if (value === undefined) return 'n/a ×';
  return `${value >= 10 ? value.toFixed(0) : value >= 1 ? value.toFixed(2) : value.toPrecision(2)}×`;
}

function nullableMedian(values: Array<number | null>): number | null {
  const numbers = values.filter((v): v is number => v !== null);
  return numbers.length > 0 ? median(numbers) : null;
}

function worstMedian(values: Array<number | null>): number | null {
  if (values.length === 0) return null;
  const sorted = values.map((v) => v ?? Infinity).sort((a, b) => a - b);
  const mid = sorted[(sorted.length - 1) >> 1];
  const upper = sorted[sorted.length >> 1];
  const m = (mid + upper) / 2;
  return Number.isFinite(m) ? Math.round(m) : null;
}
