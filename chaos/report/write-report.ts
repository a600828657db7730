import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChaosReport } from './chaos-report';
import { markdownReport } from './markdown';

/** Writes `<stamp>.json` and `<stamp>.md`, and `latest.md` (smoke runs: `latest-smoke.md`). */
export function writeReport(report: ChaosReport, outDir: string, stamp: string): string[] {
  mkdirSync(outDir, { recursive: true });
  const markdown = markdownReport(report);
  const suffix = report.meta.options.smoke ? '-smoke' : '';
  const files: Array<[string, string]> = [
    [`${stamp}${suffix}.json`, JSON.stringify(report, null, 2) + '\n'],
    [`${stamp}${suffix}.md`, markdown],
    [`latest${suffix}.md`, markdown],
  ];
  for (const [name, content] of files) writeFileSync(join(outDir, name), content);
  return files.map(([name]) => join(outDir, name));
}
