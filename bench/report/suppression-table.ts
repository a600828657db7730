import { median } from '../measure/percentiles';
import type { SuppressionResult } from './result-types';
import { fmt, ratio } from './summary';

/**
 * The suppression section: per list size, what the sign-ups cost mailbridge (median over the
 * repetitions, range in brackets), then the filled list's CPU over the empty one's, repetition by
 * repetition: both ran in the same repetition, one after the other.
 */
export function suppressionSection(results: SuppressionResult[]): string[] {
  if (results.length === 0) return [];
  const sizes = [...new Set(results.map((r) => r.entries))].sort((a, b) => a - b);
  const expected = Math.max(...results.map((r) => r.expected));
  const cpuRatios = filledOverEmpty(results);
  return [
    `## Suppression list: ${fmt(expected)} user.signed_up.v1 events, lists of ${sizes.map(whole).join(' and ')} entries`,
    '',
    'mailbridge alone on the user workload, its suppression list written into its Redis ' +
      'namespace before it starts. A filled list holds every hundredth sign-up (scope `all`: ' +
      'not sent, answered SUPPRESSED) and addresses no sign-up has. Every vendor request costs ' +
      'one HMGET of its recipients, whatever the list holds. Every repetition runs each list, ' +
      'the other first in the next. Window and CPU as in the throughput tables.',
    '',
    '| list entries | events | suppressed sign-ups | campaign requests | recipients / request | ' +
      'CPU ms / 1k sign-ups | machine CPU ms / 1k | sign-ups/s | status |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---|',
    ...sizes.map((entries) => row(results.filter((r) => r.entries === entries))),
    '',
    ...(cpuRatios.length > 0
      ? [
          `filled ÷ empty list, CPU ms per 1,000 sign-ups: **${ratio(median(cpuRatios))}** ` +
            `(median; per repetition ${cpuRatios.map((r) => ratio(r)).join(', ')}).`,
          '',
        ]
      : []),
  ];
}

/** Per repetition, the largest list's CPU per 1,000 sign-ups over the empty list's. */
export function filledOverEmpty(results: SuppressionResult[]): number[] {
  const largest = Math.max(...results.map((r) => r.entries));
  const reps = [...new Set(results.map((r) => r.rep))].sort((a, b) => a - b);
  return reps.flatMap((rep) => {
    const cpu = (entries: number) => {
      const run = results.find((r) => r.rep === rep && r.entries === entries);
      return run && measured(run) ? run.cpuMsPer1kEvents : null;
    };
    const empty = cpu(0);
    const filled = cpu(largest);
    return largest > 0 && empty !== null && empty > 0 && filled !== null ? [filled / empty] : [];
  });
}

function row(runs: SuppressionResult[]): string {
  const done = runs.filter(measured);
  const statuses = [...new Set(runs.map((r) => r.status))].join(', ');
  if (done.length === 0)
    return `| ${whole(runs[0].entries)} | — | — | — | — | — | — | — | ${statuses} |`;
  const cpu = done.flatMap((r) => (r.cpuMsPer1kEvents === null ? [] : [r.cpuMsPer1kEvents]));
  const machine = done.flatMap((r) => (r.hostCpuMsPer1k ? [r.hostCpuMsPer1k.machine] : []));
  const rates = done.map((r) => r.eventsPerSecond);
  const range = (values: number[], show: (n: number) => string) =>
    values.length > 1 ? ` (${show(Math.min(...values))}–${show(Math.max(...values))})` : '';
  const perRequest = done.flatMap((r) =>
    r.vendor.recipientsPerRequest === null ? [] : [r.vendor.recipientsPerRequest],
  );
  return (
    `| ${whole(runs[0].entries)} | ${whole(median(done.map((r) => r.events)))} | ` +
    `${whole(median(done.map((r) => r.suppressedSignUps)))} | ` +
    `${whole(median(done.map((r) => r.vendor.campaignRequests)))} | ` +
    `${perRequest.length > 0 ? median(perRequest).toFixed(1) : '—'} | ` +
    `${cpu.length > 0 ? `**${whole(median(cpu))}**${range(cpu, whole)}` : '—'} | ` +
    `${machine.length > 0 ? whole(median(machine)) : '—'} | ` +
    `${fmt(median(rates))}${range(rates, fmt)} | ${statuses} |`
  );
}

/** A count, as counts are written in the tables: 100,000. */
function whole(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

function measured(run: SuppressionResult): boolean {
  return run.status === 'complete' || run.status === 'capped';
}
