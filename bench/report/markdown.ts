import { median } from '../measure/percentiles';
import { localeShares } from '../workloads/event-factory';
import type { BenchReport, LocaleResult } from './result-types';
import { sizingSection, type Sizing } from './sizing';
import { suppressionSection } from './suppression-table';
import {
  fmt,
  headline,
  localeCpuRatios,
  ms,
  ratio,
  ratios,
  summarizeLatency,
  summarizeLocales,
  summarizeThroughput,
  type LocaleSummary,
  type PhaseSummary,
} from './summary';

/**
 * The Markdown table of one run; `chart` is the SVG's path relative to the Markdown file; with
 * `sizing`, a section saying whether this run still fits the Deployment's reviewed sizing.
 */
export function markdownReport(report: BenchReport, chart: string, sizing?: Sizing): string {
  const { meta } = report;
  const m = meta.machine;
  const throughput = summarizeThroughput(report.throughput);
  const out: string[] = [
    `# mailbridge benchmark, ${meta.startedAt.slice(0, 16).replace('T', ' ')} UTC`,
    '',
    `Command: \`${meta.command}\` · commit \`${meta.commit}\` · scale ${meta.scale} · ` +
      `the run took ${(meta.durationSeconds / 60).toFixed(1)} min`,
    '',
    `Machine: ${m.cpus} × ${m.cpuModel}, ${m.memoryGiB} GiB, Linux ${m.kernel}, Node ${m.node}. ` +
      `Vendor sandbox: ${meta.vendorLatency}.`,
    '',
    ...headline(report).map((line) => `- **${line}**`),
    '',
    `![throughput and latency per phase](${chart})`,
    '',
  ];
  if (sizing) out.push(...sizingSection(report, sizing));
  for (const workload of ['user', 'order'] as const) {
    const rows = throughput.filter((s) => s.workload === workload);
    if (rows.length === 0) continue;
    const expected = report.throughput.find(
      (r) => r.workload === workload && r.expected > 0,
    )?.expected;
    const name = workload === 'user' ? 'user.signed_up.v1' : 'order.placed.v1';
    out.push(
      `## Throughput: ${fmt(expected ?? 0)} preloaded ${name} events`,
      '',
      'Median over repetitions (range in brackets). Window: consumer group ready → last event ' +
        'outcome (sent, failed or dead-lettered) written.',
      '',
      '| phase | events/s | vendor requests | recipients / request | peak RSS MB | CPU ms / 1k events | status |',
      '|---|---:|---:|---:|---:|---:|---|',
      ...rows.map(throughputRow),
      '',
      ...hostCpuTable(rows, meta.machine.cpus),
    );
    const listsAfter = report.throughput
      .filter((r) => r.workload === workload && r.phase === 'mailbridge')
      .flatMap((r) => (r.listsAfterMs === undefined ? [] : [r.listsAfterMs]));
    if (listsAfter.length > 0) {
      out.push(
        `mailbridge's contact lists (created when their time window closes, not per event) came ` +
          `${fmt(median(listsAfter) / 1000)} s after the last outcome (median; ` +
          `${listsAfter.map((v) => fmt(v / 1000)).join(', ')} s).`,
        '',
      );
    }
    const versus = ratios(throughput, workload);
    if (versus.length > 0) {
      out.push(
        `mailbridge ÷ ${versus.map((v) => `${v.versus} **${ratio(v.ratio)}**`).join(' · ')}`,
        '',
      );
    }
  }
  out.push(...localesSection(report.locales ?? []));
  out.push(...suppressionSection(report.suppression ?? []));
  const latency = summarizeLatency(report.latency);
  if (latency.length > 0) {
    const r = report.latency[0];
    out.push(
      `## Event-to-result latency at ${fmt(r.inputRate)} events/s`,
      '',
      `${fmt(r.sent)} measured events per run, published at a fixed rate onto an empty topic ` +
        `after ${fmt(r.warmupSeconds)} s of warm-up at the same rate (not measured); latency = ` +
        'broker write time of the result − creation time of the event. Events still without a ' +
        'result when the wait ends count as slower than any measured one ("beyond window"). ' +
        'CPU and output rate cover the warm-up too.',
      '',
      '| phase | p50 | p95 | p99 | results / events | output events/s | peak RSS MB | CPU ms / 1k events | status |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---|',
      ...latency.map(
        (s) =>
          `| ${s.phase} | ${ms(s.p50)} | ${ms(s.p95)} | ${ms(s.p99)} | ${fmt(s.delivered)} / ${fmt(s.sent)} | ` +
          `${fmt(s.outputRate)} | ${s.peakRssMb.toFixed(0)} | ${num(s.cpuMsPer1kEvents)} | ${s.statuses.join(', ')} |`,
      ),
      '',
    );
  }
  if (report.backlog) {
    const b = report.backlog;
    out.push(
      `## Backlog: ${fmt(b.waiting)} events waiting, vendor ${b.vendorProfile}`,
      '',
      `Status ${b.status}${b.note ? ` (${b.note})` : ''}. Drained ${fmt(b.drained)} in the window at ` +
        `${fmt(b.meanRate)} events/s (per-5 s rates vary by ${b.rateCv === null ? 'n/a' : `${(b.rateCv * 100).toFixed(0)}%`} ` +
        `CV); a full drain would take ${b.projectedDrainSeconds === null ? 'n/a' : `${fmt(b.projectedDrainSeconds)} s`}. ` +
        `Peak RSS **${b.peakRssMb.toFixed(0)} MB**; ${b.recipientsPerRequest?.toFixed(1) ?? 'n/a'} recipients per request.`,
      '',
      '| second | results/s | RSS MB |',
      '|---:|---:|---:|',
      ...b.timeline.map(
        (t) => `| ${t.atSecond} | ${fmt(t.ratePerSecond)} | ${t.rssMb.toFixed(0)} |`,
      ),
      '',
    );
  }
  const notes = [
    ...meta.notes,
    ...throughput.flatMap((s) => s.notes.map((n) => `${s.workload} ${s.label}: ${n}`)),
    ...latency.flatMap((s) => s.notes.map((n) => `latency ${s.phase}: ${n}`)),
  ];
  if (notes.length > 0) out.push('## Notes', '', ...notes.map((n) => `- ${n}`), '');
  return out.join('\n');
}

/**
 * The locales section: per workload, what its campaign requests carried and what its sign-ups
 * cost mailbridge, then mixed-locale's CPU over single-locale's, repetition by repetition.
 */
export function localesSection(results: LocaleResult[]): string[] {
  if (results.length === 0) return [];
  const summaries = summarizeLocales(results);
  const expected = Math.max(...results.map((r) => r.expected));
  const max = results[0].maxRecipients;
  const cpuRatios = localeCpuRatios(results);
  return [
    `## Locales: ${fmt(expected)} single-locale and ${fmt(expected)} mixed-locale user.signed_up.v1 events`,
    '',
    "mailbridge alone, on two preloaded workloads whose sign-ups differ in the readers' locales " +
      'only. Each locale has its own copy of the welcome template, and so its own batch key: ' +
      'its own campaign requests. Every repetition runs both, one after the other, the other ' +
      'first in the next. Median over repetitions (range in brackets); window and CPU as in the ' +
      'throughput tables, machine as in the host CPU tables.',
    '',
    `| workload | readers' locales | events | campaign requests | recipients / request | ` +
      `full requests (${max === null ? 'maximum not known' : `${fmt(max)} recipients`}) | ` +
      'CPU ms / 1k sign-ups | machine CPU ms / 1k | sign-ups/s | status |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---|',
    ...summaries.map(localeRow),
    '',
    ...(cpuRatios.length > 0
      ? [
          `mixed-locale ÷ single-locale, CPU ms per 1,000 sign-ups: **${ratio(median(cpuRatios))}** ` +
            `(median; per repetition ${cpuRatios.map((r) => ratio(r)).join(', ')}).`,
          '',
        ]
      : []),
    ...summaries.flatMap((s) => s.notes.map((n) => `- ${s.mix}: ${n}`)),
    ...(summaries.some((s) => s.notes.length > 0) ? [''] : []),
  ];
}

function localeRow(s: LocaleSummary): string {
  const measured = Number.isFinite(s.eventsPerSecond);
  const count = (n: number | null) =>
    measured && n !== null ? Math.round(n).toLocaleString('en-US') : '—';
  const locales = localeShares(s.mix)
    .map(({ locale, share }) => `${locale} ${+(share * 100).toFixed(1)} %`)
    .join(', ');
  const cpuRange =
    s.reps > 1 && s.minCpuMsPer1kEvents !== null && s.maxCpuMsPer1kEvents !== null
      ? ` (${num(s.minCpuMsPer1kEvents)}–${num(s.maxCpuMsPer1kEvents)})`
      : '';
  const rateRange =
    s.reps > 1 ? ` (${fmt(s.minEventsPerSecond)}–${fmt(s.maxEventsPerSecond)})` : '';
  return (
    `| ${s.mix} | ${locales} | ${count(s.events)} | ${count(s.campaignRequests)} | ` +
    `${num(s.recipientsPerRequest)} | ${count(s.fullRequests)} | ` +
    `${s.cpuMsPer1kEvents === null ? '—' : `**${num(s.cpuMsPer1kEvents)}**${cpuRange}`} | ` +
    `${num(s.machineCpuMsPer1k)} | ${measured ? `${fmt(s.eventsPerSecond)}${rateRange}` : '—'} | ` +
    `${s.statuses.join(', ')} |`
  );
}

function throughputRow(s: PhaseSummary): string {
  const range =
    s.reps > 1 && Number.isFinite(s.minEventsPerSecond)
      ? ` (${fmt(s.minEventsPerSecond)}–${fmt(s.maxEventsPerSecond)})`
      : '';
  const measured = Number.isFinite(s.eventsPerSecond);
  return (
    `| ${s.label} | ${measured ? `**${fmt(s.eventsPerSecond)}**${range}` : '—'} | ` +
    `${measured ? Math.round(s.vendorRequests).toLocaleString('en-US') : '—'} | ${num(s.recipientsPerRequest)} | ` +
    `${measured ? s.peakRssMb.toFixed(0) : '—'} | ${num(s.cpuMsPer1kEvents)} | ${s.statuses.join(', ')} |`
  );
}

/**
 * Where the host's CPU went per 1,000 events, for the phases that measured it: on a host of a
 * few cores, what the broker, Redis and the vendor sandbox spend on an event is CPU the process
 * under test cannot have, and the ceilings spend none on Redis or the vendor.
 */
export function hostCpuTable(rows: PhaseSummary[], cores: number): string[] {
  const measured = rows.filter((s) => s.hostCpu !== null);
  if (measured.length === 0) return [];
  return [
    `Host CPU ms per 1,000 events (medians), all on the same ${cores} cores: the process under ` +
      'test, the broker, Redis (INFO cpu), the vendor host (sandbox and latency proxy), the ' +
      "benchmark's own process (its result collector), and what the machine spent beyond them.",
    '',
    '| phase | process under test | broker | Redis | vendor host | harness | other | machine |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...measured.map((s) => {
      const h = s.hostCpu!;
      const cells = [h.phase, h.broker, h.redis, h.vendor, h.harness, h.other].map(num);
      return `| ${s.label} | ${cells.join(' | ')} | **${num(h.machine)}** |`;
    }),
    '',
  ];
}

function num(value: number | null): string {
  return value === null ? '—' : value.toFixed(1);
}
