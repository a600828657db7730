import { execFileSync } from 'node:child_process';
import { cpus, release, totalmem } from 'node:os';
import { PHASES, type BenchOptions, type PhaseName } from '../config/bench-options';
import type { BenchReport } from './result-types';

/** What the report says about the machine, so that figures are never quoted without it. */
export function machine(): BenchReport['meta']['machine'] {
  return {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    kernel: release(),
    node: process.version,
  };
}

/** The commit under test; "+dirty" when src/ or bench/ (results aside) differ from it. */
export function commit(root: string): string {
  try {
    const sha = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      cwd: root,
      encoding: 'utf8',
    }).trim();
    const dirty = execFileSync(
      'git',
      ['status', '--porcelain', '--', 'src', 'bench', ':!bench/results'],
      {
        cwd: root,
        encoding: 'utf8',
      },
    );
    return dirty.trim() ? `${sha}+dirty` : sha;
  } catch {
    return 'unknown';
  }
}

/** Facts a reader needs beside the tables. */
export function notes(
  options: BenchOptions,
  load: number,
  orderSupported: boolean,
  brokerWarmed: boolean,
): string[] {
  const out = [
    `Load average when the run started: ${load.toFixed(2)} on ${cpus().length} cores.`,
    "Every phase runs in its own process; peak RSS and CPU are that process's, from /proc.",
    'Vendor latency is injected by a TCP proxy in front of the sandbox (bench/vendor/latency-proxy.ts).',
  ];
  if (options.scale !== 1)
    out.push(`Scaled run: event counts × ${options.scale}; not the reference workload.`);
  if (!orderSupported)
    out.push('This build has no TOPIC_ORDER_PLACED: mailbridge cannot run the order workload yet.');
  const skipped = PHASES.filter((p: PhaseName) => !options.phases.includes(p));
  if (skipped.length > 0) out.push(`Phases left out: ${skipped.join(', ')}.`);
  if (brokerWarmed)
    out.push(
      'The latency run began with an unmeasured ceiling-consume-produce round (a cold broker).',
    );
  return out;
}
