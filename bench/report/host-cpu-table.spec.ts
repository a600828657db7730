import type { HostCpuShares } from '../measure/host-cpu';
import { hostCpuTable } from './markdown';
import type { ThroughputResult } from './result-types';
import { summarizeThroughput } from './summary';

const shares = (phase: number, redis: number | null): HostCpuShares => ({
  phase,
  broker: 30,
  redis,
  vendor: 4,
  harness: 15,
  other: 1,
  machine: phase + 30 + (redis ?? 0) + 4 + 15 + 1,
});

function run(phase: string, rep: number, host: HostCpuShares | null | undefined): ThroughputResult {
  return {
    workload: 'user',
    phase,
    rep,
    status: 'complete',
    expected: 1_000,
    events: 1_000,
    windowMs: 100,
    eventsPerSecond: 10_000,
    vendor: {
      campaignRequests: 1,
      campaignRecipients: 1_000,
      contactRequests: 0,
      contactMembers: 0,
      statuses: {},
      recipientsPerRequest: 1_000,
    },
    peakRssMb: 200,
    cpuMsPer1kEvents: 100,
    hostCpuMsPer1k: host,
  } as ThroughputResult;
}

describe('the host CPU table', () => {
  it("gives each phase the median of each source's CPU per 1,000 events over its repetitions", () => {
    const summaries = summarizeThroughput([
      run('mailbridge', 1, shares(100, 20)),
      run('mailbridge', 2, shares(120, 22)),
      run('mailbridge', 3, shares(90, null)),
      run('ceiling-consume-produce', 1, shares(20, 0)),
    ]);
    expect(summaries[0].hostCpu).toEqual({
      phase: 100,
      broker: 30,
      redis: 21, // the two repetitions that read Redis
      vendor: 4,
      harness: 15,
      other: 1,
      machine: 170,
    });
    expect(hostCpuTable(summaries, 2)).toEqual([
      expect.stringContaining('all on the same 2 cores'),
      '',
      '| phase | process under test | broker | Redis | vendor host | harness | other | machine |',
      '|---|---:|---:|---:|---:|---:|---:|---:|',
      '| mailbridge | 100.0 | 30.0 | 21.0 | 4.0 | 15.0 | 1.0 | **170.0** |',
      '| ceiling-consume-produce | 20.0 | 30.0 | 0.0 | 4.0 | 15.0 | 1.0 | **70.0** |',
      '',
    ]);
  });

  it('leaves out the phases that did not measure the host, and is empty when none did', () => {
    const summaries = summarizeThroughput([
      run('mailbridge', 1, shares(100, null)),
      run('ceiling-http', 1, undefined),
    ]);
    const table = hostCpuTable(summaries, 2);
    expect(table.filter((line) => line.startsWith('| ceiling-http'))).toEqual([]);
    expect(table).toContain('| mailbridge | 100.0 | 30.0 | — | 4.0 | 15.0 | 1.0 | **150.0** |');
    expect(hostCpuTable(summarizeThroughput([run('naive', 1, null)]), 2)).toEqual([]);
  });
});
