import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { markdownReport } from './markdown';
import type { BenchReport } from './result-types';
import type { Sizing } from './sizing';
import { summarizeLatency, summarizeThroughput } from './summary';
import { svgChart } from './svg-chart';

/**
 * Writes `<stamp>.json`, `<stamp>.md`, `<stamp>.svg` and the `latest.md`/`latest.svg` copies; the
 * Markdown compares the run with `sizing` (deploy/sizing.json) when given.
 */
export function writeReport(
  report: BenchReport,
  outDir: string,
  stamp: string,
  sizing?: Sizing,
): string[] {
  mkdirSync(outDir, { recursive: true });
  const throughput = summarizeThroughput(report.throughput).filter((s) => s.workload === 'user');
  const latency = summarizeLatency(report.latency);
  const rate = report.latency[0]?.inputRate ?? 0;
  const svg = svgChart(
    `mailbridge benchmark ${report.meta.startedAt.slice(0, 10)} (scale ${report.meta.scale}, ${report.meta.machine.cpus} cores)`,
    throughput,
    latency,
    `Event-to-result latency at ${rate.toLocaleString('en-US')} events/s (ms, log scale)`,
  );
  const files: Array<[string, string]> = [
    [`${stamp}.json`, JSON.stringify(report, null, 2) + '\n'],
    [`${stamp}.md`, markdownReport(report, `${stamp}.svg`, sizing)],
    [`${stamp}.svg`, svg],
    ['latest.md', markdownReport(report, 'latest.svg', sizing)],
    ['latest.svg', svg],
  ];
  for (const [name, content] of files) writeFileSync(join(outDir, name), content);
  return files.map(([name]) => join(outDir, name));
}
