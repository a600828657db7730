import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';
import { readProcess, TICKS_PER_SECOND } from '../infra/process-monitor';

/**
 * CPU time, in ms since boot (or since each process started), of what a throughput phase's
 * events cost on the host: the whole machine, and the processes the benchmark can name. A
 * source the run cannot read (a broker it did not start, a Redis that does not answer INFO) is
 * undefined.
 */
export interface HostCpuReading {
  machine: number;
  broker?: number;
  redis?: number;
  vendor?: number;
  /** The benchmark's own process: its result collector, monitors and the vendor's IPC. */
  harness: number;
}

/**
 * CPU ms per 1,000 events over a phase's window, by where it was spent. `phase` is the process
 * under test (mailbridge, the floor, a ceiling); `other` is what the machine spent beyond every
 * named process (the kernel's own work, the latency proxy's sockets, anything else running).
 * null: not measured in this run.
 */
export interface HostCpuShares {
  phase: number;
  broker: number | null;
  redis: number | null;
  vendor: number | null;
  harness: number;
  other: number;
  machine: number;
}

export const HOST_CPU_COLUMNS = [
  'phase',
  'broker',
  'redis',
  'vendor',
  'harness',
  'other',
  'machine',
] as const satisfies ReadonlyArray<keyof HostCpuShares>;

/** Reads the host's CPU counters for the run: the machine, its broker, Redis and vendor host. */
export class HostCpu {
  constructor(
    private readonly sources: {
      brokerPid?: number;
      vendorPid?: number;
      redis?: Pick<Redis, 'info'>;
    },
  ) {}

  async read(): Promise<HostCpuReading> {
    const { brokerPid, vendorPid, redis } = this.sources;
    const info = redis ? await redis.info('cpu').catch(() => undefined) : undefined;
    const usage = process.cpuUsage();
    return {
      machine: machineCpuMs(readFileSync('/proc/stat', 'utf8')),
      broker: brokerPid === undefined ? undefined : readProcess(brokerPid)?.cpuMs,
      vendor: vendorPid === undefined ? undefined : readProcess(vendorPid)?.cpuMs,
      redis: info === undefined ? undefined : redisCpuMsOrUndefined(info),
      harness: (usage.user + usage.system) / 1000,
    };
  }
}

/**
 * The machine's busy CPU time in ms, from the `cpu` line of /proc/stat: user, nice, system, irq,
 * softirq and steal (idle and iowait are not busy; guest time is already counted in user).
 */
export function machineCpuMs(procStat: string, ticksPerSecond = TICKS_PER_SECOND): number {
  const line = procStat.split('\n').find((l) => l.startsWith('cpu '));
  if (!line) throw new Error('/proc/stat has no cpu line');
  const [user, nice, system, , , irq, softirq, steal] = line
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  const ticks = user + nice + system + irq + softirq + (steal || 0);
  return (ticks * 1000) / ticksPerSecond;
}

/** Redis' own CPU time in ms, every thread, from the `# CPU` section of INFO. */
export function redisCpuMs(info: string): number {
  const field = (name: string) => {
    const value = new RegExp(`^${name}:([0-9.]+)\\s*$`, 'm').exec(info)?.[1];
    if (value === undefined) throw new Error(`Redis INFO has no ${name}`);
    return Number(value);
  };
  return (field('used_cpu_user') + field('used_cpu_sys')) * 1000;
}

function redisCpuMsOrUndefined(info: string): number | undefined {
  try {
    return redisCpuMs(info);
  } catch {
    return undefined; // a Redis that keeps its CPU figures to itself: the column stays empty
  }
}

/**
 * Each source's CPU between two readings, per 1,000 of the events handled between them; the
 * process under test's CPU over the same window is given (`phaseCpuMs`, from its monitor).
 */
export function sharesPer1k(
  start: HostCpuReading,
  end: HostCpuReading,
  phaseCpuMs: number,
  events: number,
): HostCpuShares | null {
  if (events <= 0) return null;
  const per1k = (ms: number) => (ms * 1000) / events;
  const delta = (key: 'broker' | 'redis' | 'vendor') => {
    const [a, b] = [start[key], end[key]];
    return a === undefined || b === undefined ? null : per1k(b - a);
  };
  const shares = {
    phase: per1k(phaseCpuMs),
    broker: delta('broker'),
    redis: delta('redis'),
    vendor: delta('vendor'),
    harness: per1k(end.harness - start.harness),
    machine: per1k(end.machine - start.machine),
  };
  const named =
    shares.phase +
    (shares.broker ?? 0) +
    (shares.redis ?? 0) +
    (shares.vendor ?? 0) +
    shares.harness;
  // Each counter ticks on its own (the machine's and the processes' at 10 ms): never below 0.
  return { ...shares, other: Math.max(0, shares.machine - named) };
}
