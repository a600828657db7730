import type { LocaleMix } from '../workloads/event-factory';
import { localesSection } from './markdown';
import type { BenchReport, LocaleResult, PhaseStatus } from './result-types';
import { headline } from './summary';

interface Run {
  rep: number;
  requests: number;
  full: number | null;
  cpu: number;
  rate: number;
  machine?: number;
  status?: PhaseStatus;
  note?: string;
}

function run(mix: LocaleMix, r: Run, maxRecipients: number | null = 1_000): LocaleResult {
  const events = 50_000;
  return {
    mix,
    maxRecipients,
    fullRequests: r.full,
    workload: 'user',
    phase: 'mailbridge',
    rep: r.rep,
    status: r.status ?? 'complete',
    note: r.note,
    expected: events,
    events,
    windowMs: (events * 1000) / r.rate,
    eventsPerSecond: r.rate,
    vendor: {
      campaignRequests: r.requests,
      campaignRecipients: events,
      campaignSizes: {},
      contactRequests: 0,
      contactMembers: 0,
      statuses: {},
      recipientsPerRequest: events / r.requests,
    },
    peakRssMb: 200,
    cpuMsPer1kEvents: r.cpu,
    hostCpuMsPer1k:
      r.machine === undefined
        ? undefined
        : {
            phase: r.cpu,
            broker: null,
            redis: null,
            vendor: null,
            harness: 10,
            other: 0,
            machine: r.machine,
          },
  };
}

/** Two repetitions, the second in the other order, as the bench runs them. */
const twoReps = [
  run('single-locale', { rep: 1, requests: 50, full: 50, cpu: 60, rate: 12_000, machine: 100 }),
  run('mixed-locale', { rep: 1, requests: 52, full: 47, cpu: 66, rate: 11_000, machine: 110 }),
  run('mixed-locale', { rep: 2, requests: 54, full: 46, cpu: 72, rate: 10_000, machine: 130 }),
  run('single-locale', { rep: 2, requests: 50, full: 50, cpu: 64, rate: 12_400, machine: 120 }),
];

describe('the locales table', () => {
  it('gives each workload its medians over the repetitions, and mixed ÷ single CPU per repetition', () => {
    expect(localesSection(twoReps)).toEqual([
      '## Locales: 50,000 single-locale and 50,000 mixed-locale user.signed_up.v1 events',
      '',
      expect.stringContaining('Every repetition runs both'),
      '',
      "| workload | readers' locales | events | campaign requests | recipients / request | " +
        'full requests (1,000 recipients) | CPU ms / 1k sign-ups | machine CPU ms / 1k | ' +
        'sign-ups/s | status |',
      '|---|---|---:|---:|---:|---:|---:|---:|---:|---|',
      '| single-locale | en-GB 100 % | 50,000 | 50 | 1000.0 | 50 | **62.0** (60.0–64.0) | ' +
        '110.0 | 12,200 (12,000–12,400) | complete |',
      '| mixed-locale | en-GB 70 %, de-DE 7.5 %, fr-FR 7.5 %, es-ES 7.5 %, ja-JP 7.5 % | ' +
        '50,000 | 53 | 943.7 | 47 | **69.0** (66.0–72.0) | 120.0 | 10,500 (10,000–11,000) | ' +
        'complete |',
      '',
      // 66 / 60 and 72 / 64: each repetition's own pair; their median, not 69 / 62.
      'mixed-locale ÷ single-locale, CPU ms per 1,000 sign-ups: **1.11×** (median; per ' +
        'repetition 1.10×, 1.13×).',
      '',
    ]);
  });

  it('leaves a failed repetition out of the medians and the ratios, and lists its note', () => {
    const results = [
      ...twoReps,
      run('single-locale', {
        rep: 3,
        requests: 1,
        full: 0,
        cpu: 999,
        rate: 1,
        status: 'failed',
        note: 'process exited early',
      }),
      run('mixed-locale', { rep: 3, requests: 52, full: 47, cpu: 68, rate: 11_000 }),
    ];
    const table = localesSection(results);
    expect(table).toContainEqual(
      expect.stringMatching(
        /^\| single-locale .* \*\*62\.0\*\* \(60\.0–64\.0\) .* complete, failed \|$/,
      ),
    );
    expect(table).toContainEqual(expect.stringContaining('per repetition 1.10×, 1.13×).'));
    expect(table).toContain('- single-locale: process exited early');
  });

  it('says so when the maximum of recipients was not known, instead of counting full requests', () => {
    const results = [
      run('single-locale', { rep: 1, requests: 50, full: null, cpu: 60, rate: 12_000 }, null),
      run('mixed-locale', { rep: 1, requests: 52, full: null, cpu: 66, rate: 11_000 }, null),
    ];
    const [, , , , header, , single] = localesSection(results);
    expect(header).toContain('full requests (maximum not known)');
    // One repetition: no ranges; no host readings: no machine figure.
    expect(single).toBe(
      '| single-locale | en-GB 100 % | 50,000 | 50 | 1000.0 | — | **60.0** | — | 12,000 | complete |',
    );
  });

  it('is empty when the section did not run, and gives the headline a line when it did', () => {
    expect(localesSection([])).toEqual([]);
    const report = { throughput: [], latency: [], locales: twoReps } as unknown as BenchReport;
    expect(headline(report)).toEqual([
      'locales: 943.7 recipients per request mixed-locale, 1000.0 single-locale; ' +
        'CPU per 1,000 sign-ups mixed ÷ single 1.11×',
    ]);
  });
});
