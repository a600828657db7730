import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

export interface ProcessSample {
  at: number;
  rssBytes: number;
  cpuMs: number;
}

export const TICKS_PER_SECOND = clockTicks();

/**
 * Samples one process from /proc: resident memory (VmRSS) and CPU time (utime + stime). Reading
 * /proc costs the monitored process nothing, so the figures are the process's own.
 */
export class ProcessMonitor {
  readonly samples: ProcessSample[] = [];
  private peakRss = 0;
  private timer?: NodeJS.Timeout;

  constructor(
    readonly pid: number,
    private readonly intervalMs = 100,
    /** Keep every sample (a time series) rather than only the peak. */
    private readonly keepSeries = false,
  ) {}

  start(): this {
    this.sample();
    this.timer = setInterval(() => this.sample(), this.intervalMs);
    this.timer.unref();
    return this;
  }

  stop(): void {
    this.sample();
    clearInterval(this.timer);
  }

  get peakRssBytes(): number {
    return this.peakRss;
  }

  /** Takes a sample now and returns it; undefined once the process is gone. */
  sample(): ProcessSample | undefined {
    const sample = readProcess(this.pid);
    if (!sample) return undefined;
    this.peakRss = Math.max(this.peakRss, sample.rssBytes);
    if (this.keepSeries) this.samples.push(sample);
    return sample;
  }
}

export function readProcess(pid: number): ProcessSample | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const rssKb = Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1] ?? 0);
    // The command name (field 2) may hold spaces; count fields after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15)
    return { at: Date.now(), rssBytes: rssKb * 1024, cpuMs: (ticks * 1000) / TICKS_PER_SECOND };
  } catch {
    return undefined;
  }
}

function clockTicks(): number {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
}
