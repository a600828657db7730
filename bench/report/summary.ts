import { HOST_CPU_COLUMNS, type HostCpuShares } from '../measure/host-cpu';
import { median } from '../measure/percentiles';
import type { LocaleMix } from '../workloads/event-factory';
import type { BenchReport, LatencyResult, LocaleResult, ThroughputResult } from './result-types';

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

/** The median over repetitions of one workload of the locales section. */
export interface LocaleSummary {
  mix: LocaleMix;
  reps: number;
  statuses: string[];
  events: number;
  campaignRequests: number;
  recipientsPerRequest: number | null;
  /** Null when the service's maximum was not known. */
  fullRequests: number | null;
  maxRecipients: number | null;
  cpuMsPer1kEvents: number | null;
  minCpuMsPer1kEvents: number | null;
  maxCpuMsPer1kEvents: number | null;
  /** The whole host's CPU per 1,000 sign-ups over the same window (the host CPU table's). */
  machineCpuMsPer1k: number | null;
  eventsPerSecond: number;
  minEventsPerSecond: number;
  maxEventsPerSecond: number;
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

/** Each locales workload's medians, in the order the workloads first ran. */
export function summarizeLocales(results: LocaleResult[]): LocaleSummary[] {
  const mixes = [...new Set(results.map((r) => r.mix))];
  return mixes.map((mix) => {
    const runs = results.filter((r) => r.mix === mix);
    const measured = runs.filter((r) => r.status === 'complete' || r.status === 'capped');
    const cpu = measured.flatMap((r) => (r.cpuMsPer1kEvents === null ? [] : [r.cpuMsPer1kEvents]));
    const rates = measured.map((r) => r.eventsPerSecond);
    return {
      mix,
      reps: runs.length,
      statuses: [...new Set(runs.map((r) => r.status))],
      events: median(measured.map((r) => r.events)),
      campaignRequests: median(measured.map((r) => r.vendor.campaignRequests)),
      recipientsPerRequest: nullableMedian(measured.map((r) => r.vendor.recipientsPerRequest)),
      fullRequests: nullableMedian(measured.map((r) => r.fullRequests)),
      maxRecipients: runs[0].maxRecipients,
      cpuMsPer1kEvents: nullableMedian(cpu),
      minCpuMsPer1kEvents: cpu.length > 0 ? Math.min(...cpu) : null,
      maxCpuMsPer1kEvents: cpu.length > 0 ? Math.max(...cpu) : null,
      machineCpuMsPer1k: nullableMedian(measured.map((r) => r.hostCpuMsPer1k?.machine ?? null)),
      eventsPerSecond: median(rates),
      minEventsPerSecond: Math.min(...rates),
      maxEventsPerSecond: Math.max(...rates),
      notes: collapse(runs.map((r) => r.note)),
    };
  });
}

/**
 * Mixed-locale's CPU per 1,000 sign-ups over single-locale's, one ratio per repetition in which
 * both were measured: each repetition ran the two back to back, so a ratio within one is the
 * least touched by drift between repetitions.
 */
export function localeCpuRatios(results: LocaleResult[]): number[] {
  const cpuOf = (mix: LocaleMix, rep: number) => {
    const run = results.find((r) => r.mix === mix && r.rep === rep);
    const measured = run && (run.status === 'complete' || run.status === 'capped');
    return measured ? run.cpuMsPer1kEvents : null;
  };
  const reps = [...new Set(results.map((r) => r.rep))].sort((a, b) => a - b);
  return reps.flatMap((rep) => {
    const single = cpuOf('single-locale', rep);
    const mixed = cpuOf('mixed-locale', rep);
    return single !== null && single > 0 && mixed !== null ? [mixed / single] : [];
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
  const locales = summarizeLocales(report.locales ?? []);
  const single = locales.find((s) => s.mix === 'single-locale');
  const mixed = locales.find((s) => s.mix === 'mixed-locale');
  const cpuRatios = localeCpuRatios(report.locales ?? []);
  if (single && mixed) {
    const perRequest = (s: LocaleSummary) => s.recipientsPerRequest?.toFixed(1) ?? 'n/a';
    lines.push(
      `locales: ${perRequest(mixed)} recipients per request mixed-locale, ${perRequest(single)} ` +
        `single-locale; CPU per 1,000 sign-ups mixed ÷ single ` +
        `${cpuRatios.length > 0 ? ratio(median(cpuRatios)) : 'n/a'}`,
    );
  }
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
