import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChaosRunReport } from '../report/chaos-report';
import { verdict } from './verdict';

/**
 * The `resend` run of chaos/results/20261124T0716: a replica was killed after writing a contact
 * list's creation and before its answer was recorded; the replica that took the list over
 * created it again, as `AMBIGUOUS_SEND_POLICY=resend` says, and marked the results ambiguous.
 * Every member of that list is a double of its order's action, and none is unexplained.
 */
function resendRun(): ChaosRunReport {
  const file = join(__dirname, '../results/20261124T0716.json');
  const report = JSON.parse(readFileSync(file, 'utf8')) as { runs: ChaosRunReport[] };
  return report.runs.find((r) => r.policy === 'resend')!;
}

describe('chaos verdict on a contact list created twice', () => {
  it('passes it under resend when every member’s result says the send was ambiguous', () => {
    const run = resendRun();
    expect(run.vendor.listsCreatedTwice).toBe(1);
    expect(run.audit.doubles).toMatchObject({ unexplained: 0 });
    expect(verdict(run, 15_000)).toEqual([]);
  });

  it('fails it under resend when a member’s double is unexplained', () => {
    const run = resendRun();
    run.audit.doubles.unexplained = 1;
    expect(verdict(run, 15_000)).toEqual(['1 unexplained doubles']);
  });

  it('fails it under the at-most-once policy whatever its results say', () => {
    const run = { ...resendRun(), policy: 'fail' as const };
    run.audit = { ...run.audit, doubles: { ...run.audit.doubles, total: 0, ambiguous: 0 } };
    run.audit.ambiguousWithoutMark = 0;
    expect(verdict(run, 15_000)).toEqual([
      '1 contact lists created more than once under the at-most-once policy',
    ]);
  });
});

describe('chaos verdict on instances that ended by themselves', () => {
  it('fails a run in which an instance aborted, as V8 does out of heap', () => {
    const run = resendRun();
    run.faults.crashes = [{ atMs: 61_250, slot: 'b', exit: 'SIGABRT' }];
    expect(verdict(run, 15_000)).toEqual([
      'b ended by SIGABRT at 61.3 s, a signal the harness did not send (SIGABRT: out of heap)',
    ]);
  });

  it('passes one that exited with a code, which the pool restarts as an orchestrator would', () => {
    const run = resendRun();
    run.faults.crashes = [{ atMs: 61_250, slot: 'b', exit: '1' }];
    expect(verdict(run, 15_000)).toEqual([]);
  });
});
