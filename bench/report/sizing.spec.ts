import type { BenchReport, ThroughputResult } from './result-types';
import { MARGINS, footprintOf, sizingSection, type Sizing } from './sizing';

const sizing: Sizing = {
  reviewed: '2026-11-28',
  source: {
    result: 'bench/results/2026-11-27T0651.json',
    startedAt: '2026-11-27T06:51:30.845Z',
    commit: '401146f',
    command: 'npm run bench -- --profile',
    machine: '2 × AMD EPYC',
  },
  peakRssMiB: 250,
  signUpCores: [1, 1, 1],
  orderCores: [1.5, 1.6, 1.5],
};

/** A mailbridge run at `eventsPerSecond` and `cpuMs` per 1,000 events: cores = their product / 1e6. */
function run(
  workload: 'user' | 'order',
  eventsPerSecond: number,
  cpuMs: number,
  peakRssMb: number,
): ThroughputResult {
  return {
    workload,
    phase: 'mailbridge',
    rep: 1,
    status: 'complete',
    eventsPerSecond,
    cpuMsPer1kEvents: cpuMs,
    peakRssMb,
  } as ThroughputResult;
}

function report(throughput: ThroughputResult[]): BenchReport {
  return {
    meta: {} as BenchReport['meta'],
    throughput: [{ ...run('user', 50_000, 10, 900), phase: 'ceiling-consume' }, ...throughput],
    latency: [],
  };
}

describe("the benchmark report's comparison with deploy/sizing.json", () => {
  it("takes a run's footprint from its mailbridge phases only", () => {
    const footprint = footprintOf(
      report([run('user', 10_000, 100, 240), run('order', 5_000, 300, 245)]),
    );
    expect(footprint).toEqual({ peakRssMiB: 245, signUpCores: [1], orderCores: [1.5] });
  });

  it('says the sizing holds for a run within the headroom the Deployment keeps', () => {
    const text = sizingSection(
      report([run('user', 11_000, 100, 260), run('order', 5_000, 320, 255)]),
      sizing,
    ).join('\n');
    expect(text).toContain('deploy/sizing.json');
    expect(text).toContain('bench/results/2026-11-27T0651.json');
    expect(text).toContain('| peak RSS, MiB | 250 | 260 | yes |');
    expect(text).toContain('The sizing still holds.');
  });

  it('says which figure no longer holds, and what to re-size', () => {
    const heavy = 250 * MARGINS.memory + 1;
    const text = sizingSection(
      report([run('user', 10_000, 100, heavy), run('order', 5_000, 300, 240)]),
      sizing,
    ).join('\n');
    expect(text).toContain(`| peak RSS, MiB | 250 | ${heavy.toFixed(0)} | **no** |`);
    expect(text).toContain('| cores at full speed on sign-ups (median) | 1.00 | 1.00 | yes |');
    expect(text).toContain('**The sizing no longer holds for this run.**');
    expect(text).toContain('deploy/base/deployment.yaml');
  });

  it('flags a sign-up figure far below the sizing too: the CPU request would be too high', () => {
    const text = sizingSection(report([run('user', 10_000, 50, 200)]), sizing).join('\n');
    expect(text).toContain('| cores at full speed on sign-ups (median) | 1.00 | 0.50 | **no** |');
  });

  it('says so when the run measured no mailbridge phase', () => {
    expect(sizingSection(report([]), sizing).join('\n')).toContain(
      'This run measured no mailbridge phase.',
    );
  });
});
