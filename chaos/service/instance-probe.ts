import { readFileSync } from 'node:fs';

/** The counters a chaos run reads from each instance's `GET /metrics`. */
export interface InstanceCounters {
  ambiguousSends: number;
  possibleDuplicateSends: number;
}

/**
 * The process's peak resident set (VmHWM, kB): the kernel keeps the high-water mark, so one read
 * just before a kill or stop gives the peak of the whole life, which sampling could miss.
 */
export function peakRssKb(pid: number): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmHWM:\s+(\d+)\s+kB/m.exec(status)?.[1];
    return kb === undefined ? undefined : Number(kb);
  } catch {
    return undefined; // already gone
  }
}

/**
 * Reads the ambiguity counters from an instance. A counter the build does not export yet reads
 * as undefined, so the harness runs against the service before and after the change.
 */
export async function scrapeCounters(port: number): Promise<Partial<InstanceCounters>> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/metrics`, {
      signal: AbortSignal.timeout(1_000),
    });
    if (!response.ok) return {};
    const text = await response.text();
    return {
      ambiguousSends: sum(text, 'mailbridge_ambiguous_sends_total'),
      possibleDuplicateSends: sum(text, 'mailbridge_possible_duplicate_sends_total'),
    };
  } catch {
    return {};
  }
}

/**
 * Sum of every sample of one metric, whatever its labels; 0 for a declared metric that has no
 * sample yet (a labelled counter never incremented), undefined for one the build lacks.
 */
function sum(text: string, metric: string): number | undefined {
  let total = text.includes(`# TYPE ${metric} `) ? 0 : undefined;
  for (const line of text.split('\n')) {
    if (!line.startsWith(metric)) continue;
    const rest = line.slice(metric.length);
    if (rest[0] !== ' ' && rest[0] !== '{') continue;
    const value = Number(rest.slice(rest.lastIndexOf(' ') + 1));
    if (Number.isFinite(value)) total = (total ?? 0) + value;
  }
  return total;
}
