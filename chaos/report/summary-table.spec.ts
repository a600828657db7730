import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChaosReport } from './chaos-report';
import { faultsInjected, summaryTable } from './summary-table';

const runsOf = (stamp: string) =>
  (JSON.parse(readFileSync(join(__dirname, `../results/${stamp}.json`), 'utf8')) as ChaosReport)
    .runs;

describe('the summary table of a --cluster run', () => {
  const cluster = runsOf('20261128T2347');

  it('names each column by scenario and policy and gives the cluster faults with their stalls', () => {
    const table = summaryTable(cluster, 15_000);
    expect(table.split('\n')[0]).toBe(
      '| figure | broker-loss, policy `resend` | broker-loss, policy `fail` | ' +
        'redis-failover, policy `resend` | redis-failover, policy `fail` |',
    );
    const row = (figure: string) =>
      table.split('\n').find((line) => line.startsWith(`| ${figure}`));
    expect(row('kill -9 of a broker')).toContain('node 1 at 26.1 s, 17.8 s, 34.7 s (planned 1)');
    expect(row('kill -9 of the Redis primary')).toContain('39700 → 39702 at 16.0 s, 2.4 s');
    expect(row('kill -9 of a broker')).toContain('none (planned 0)');
    expect(row('**longest stall**')).toContain('| 61.2 s | 62.1 s | 57.8 s; 25.9 s |');
  });

  it('counts every fault injected, by kind', () => {
    expect(faultsInjected(cluster[0])).toBe(
      '12: 8 instance kill -9, 1 SIGTERM under load, 2 third replica in/out, 1 broker kill -9',
    );
    expect(faultsInjected(cluster[2])).toBe(
      '13: 8 instance kill -9, 1 SIGTERM under load, 2 third replica in/out, 2 Redis primary kill -9',
    );
  });

  it('leaves the table of a single-node run without the cluster rows', () => {
    const table = summaryTable(runsOf('20261128T1453'), 15_000);
    expect(table).not.toContain('| scenario |');
    expect(table).not.toContain('longest stall');
    expect(table.split('\n')[0]).toBe('| figure | policy `resend` | policy `fail` |');
  });
});
