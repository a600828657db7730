import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { median } from '../measure/percentiles';
import type { BenchReport } from './result-types';

/**
 * The reviewed sizing of a replica, deploy/sizing.json: the figures of one benchmark run that the
 * Deployment's resources are set from. test/deploy holds the Deployment to this file, not to the
 * newest result, so a run on a slower or busier host does not fail CI; each benchmark report
 * says whether its own measurement still fits the sizing, and a person decides to re-size.
 */
export const SIZING_FILE = 'deploy/sizing.json';

/** What one run says a replica needs. */
export interface Footprint {
  /** Highest RSS of any mailbridge phase, MiB (the benchmark's "MB" are MiB). */
  peakRssMiB: number;
  /** Cores a replica uses at full speed, per repetition: events/s x CPU ms per 1,000 events. */
  signUpCores: number[];
  orderCores: number[];
}

export interface Sizing extends Footprint {
  /** When a person last checked the Deployment against these figures. */
  reviewed: string;
  /** The run the figures come from, and how to reproduce it. */
  source: { result: string; startedAt: string; commit: string; command: string; machine: string };
}

/**
 * The headroom the Deployment keeps around the sizing (test/deploy/manifests.deploy-spec.ts):
 * memory limit above the peak RSS; CPU request within these bounds of the sign-up median, so one
 * replica runs sign-ups at full speed; CPU limit above the heaviest repetition.
 */
export const MARGINS = { memory: 1.15, requestLow: 0.8, requestHigh: 1.25, cpuLimit: 1.1 };

/** The footprint of a run's mailbridge phases (empty arrays, peak 0: the phase did not run). */
export function footprintOf(report: Pick<BenchReport, 'throughput' | 'latency' | 'backlog'>) {
  const runs = report.throughput.filter((t) => t.phase === 'mailbridge');
  const cores = (workload: string): number[] =>
    runs
      .filter((t) => t.workload === workload && t.cpuMsPer1kEvents !== null)
      .map((t) => (t.eventsPerSecond * t.cpuMsPer1kEvents!) / 1e6);
  return {
    peakRssMiB: Math.max(
      0,
      ...runs.map((t) => t.peakRssMb),
      ...report.latency.filter((l) => l.phase === 'mailbridge').map((l) => l.peakRssMb),
      report.backlog?.peakRssMb ?? 0,
    ),
    signUpCores: cores('user'),
    orderCores: cores('order'),
  } satisfies Footprint;
}

export function readSizing(root: string): Sizing {
  return JSON.parse(readFileSync(join(root, SIZING_FILE), 'utf8')) as Sizing;
}

/** The benchmark report's section: this run's footprint against the sizing, and the verdict. */
export function sizingSection(report: BenchReport, sizing: Sizing): string[] {
  const run = footprintOf(report);
  const rows: Array<{ what: string; sized: number; measured: number; holds: boolean }> = [];
  const f = (n: number, digits: number) => n.toFixed(digits);
  if (run.peakRssMiB > 0) {
    rows.push({
      what: 'peak RSS, MiB',
      sized: sizing.peakRssMiB,
      measured: run.peakRssMiB,
      holds: run.peakRssMiB <= sizing.peakRssMiB * MARGINS.memory,
    });
  }
  if (run.signUpCores.length > 0) {
    const sized = median(sizing.signUpCores);
    const measured = median(run.signUpCores);
    rows.push({
      what: 'cores at full speed on sign-ups (median)',
      sized,
      measured,
      holds: measured >= sized * MARGINS.requestLow && measured <= sized * MARGINS.requestHigh,
    });
  }
  if (run.signUpCores.length + run.orderCores.length > 0) {
    const sized = Math.max(...sizing.signUpCores, ...sizing.orderCores);
    const measured = Math.max(...run.signUpCores, ...run.orderCores);
    rows.push({
      what: 'cores in the heaviest repetition',
      sized,
      measured,
      holds: measured <= sized * MARGINS.cpuLimit,
    });
  }
  const out = [
    `## Against the reviewed sizing (${SIZING_FILE})`,
    '',
    `The Deployment's resources are set from ${sizing.source.result} (\`${sizing.source.command}\`, ` +
      `commit \`${sizing.source.commit}\`, reviewed ${sizing.reviewed}). A figure holds while it ` +
      `stays within the headroom the Deployment keeps: peak RSS up to ${f(MARGINS.memory, 2)}× the ` +
      `sized one, the sign-up median within ${f(MARGINS.requestLow, 2)}–${f(MARGINS.requestHigh, 2)}× ` +
      `(the CPU request), the heaviest repetition up to ${f(MARGINS.cpuLimit, 2)}× (the CPU limit).`,
    '',
  ];
  if (rows.length === 0) return [...out, 'This run measured no mailbridge phase.', ''];
  out.push(
    '| figure | sized | this run | holds |',
    '|---|---:|---:|---|',
    ...rows.map((r) => {
      const digits = r.what.startsWith('peak') ? 0 : 2;
      return `| ${r.what} | ${f(r.sized, digits)} | ${f(r.measured, digits)} | ${r.holds ? 'yes' : '**no**'} |`;
    }),
    '',
    rows.every((r) => r.holds)
      ? 'The sizing still holds.'
      : `**The sizing no longer holds for this run.** If the host was not the cause, re-size ` +
          `deploy/base/deployment.yaml and ${SIZING_FILE} from this run together (test/deploy ` +
          'checks one against the other).',
    '',
  );
  return out;
}
