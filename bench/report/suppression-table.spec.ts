import type { PhaseStatus, SuppressionResult } from './result-types';
import { filledOverEmpty, suppressionSection } from './suppression-table';

function run(
  entries: number,
  rep: number,
  cpu: number,
  status: PhaseStatus = 'complete',
): SuppressionResult {
  const events = 50_000;
  return {
    entries,
    suppressedSignUps: entries > 0 ? 500 : 0,
    workload: 'user',
    phase: 'mailbridge',
    variant: `${entries} entries`,
    rep,
    status,
    expected: events,
    events,
    windowMs: 10_000,
    eventsPerSecond: 5_000,
    vendor: {
      campaignRequests: 60,
      campaignRecipients: events,
      campaignSizes: {},
      contactRequests: 0,
      contactMembers: 0,
      statuses: {},
      recipientsPerRequest: events / 60,
    },
    peakRssMb: 200,
    cpuMsPer1kEvents: cpu,
    hostCpuMsPer1k: {
      phase: cpu,
      broker: null,
      redis: null,
      vendor: null,
      harness: 10,
      other: 0,
      machine: cpu * 2,
    },
  };
}

describe('the suppression table', () => {
  it('compares each repetition’s filled list with its empty one, and gives each size its medians', () => {
    const results = [run(0, 1, 100), run(100_000, 1, 110), run(100_000, 2, 99), run(0, 2, 90)];
    expect(filledOverEmpty(results)).toEqual([1.1, 1.1]);
    const lines = suppressionSection(results);
    expect(lines[0]).toBe(
      '## Suppression list: 50,000 user.signed_up.v1 events, lists of 0 and 100,000 entries',
    );
    expect(lines).toContain(
      '| 0 | 50,000 | 0 | 60 | 833.3 | **95** (90–100) | 190 | 5,000 (5,000–5,000) | complete |',
    );
    expect(lines).toContain(
      '| 100,000 | 50,000 | 500 | 60 | 833.3 | **105** (99–110) | 209 | 5,000 (5,000–5,000) | complete |',
    );
    expect(lines.find((l) => l.startsWith('filled ÷ empty'))).toContain('**1.10×**');
  });

  it('leaves out a repetition that did not finish, and says so in the row', () => {
    const results = [run(0, 1, 100), run(100_000, 1, 150, 'failed')];
    expect(filledOverEmpty(results)).toEqual([]);
    const lines = suppressionSection(results);
    expect(lines).toContain('| 100,000 | — | — | — | — | — | — | — | failed |');
    expect(lines.some((l) => l.startsWith('filled ÷ empty'))).toBe(false);
  });

  it('writes nothing when the section did not run', () => {
    expect(suppressionSection([])).toEqual([]);
  });
});
