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

/**
 * The same run replayed as a graceful round that went right: its kills were SIGTERM restarts,
 * there were no broker or Redis restarts, and its one list created twice did not happen. Each
 * test below breaks one thing a graceful round must not allow.
 */
function gracefulRun(): ChaosRunReport {
  const run = resendRun();
  run.graceful = true;
  run.faults = {
    ...run.faults,
    kills: 0,
    killsPlanned: 0,
    sigtermRestarts: 22,
    sigtermRestartsSkipped: 0,
    sigtermRestartsPlanned: 22,
    brokerRestarts: [],
    brokerRestartsPlanned: 0,
    redisRestarts: [],
    redisRestartsPlanned: 0,
  };
  run.vendor = { ...run.vendor, listsCreatedTwice: 0, listExtraCreations: 0 };
  run.sigterms.push(stop({ reason: 'SIGTERM restart', exitMs: 15_000 }));
  return run;
}

function stop(over: Partial<ChaosRunReport['sigterms'][number]>) {
  return {
    at: 0,
    atMs: 90_000,
    slot: 'b',
    pid: 4242,
    reason: 'SIGTERM restart',
    exitMs: 1_000,
    exit: '0',
    withinBound: true,
    ...over,
  };
}

describe('chaos verdict on a graceful round', () => {
  it('passes one whose stops all ended with 0 within SHUTDOWN_TIMEOUT_MS, even at the bound', () => {
    const run = gracefulRun();
    expect(run.audit.doubles).toMatchObject({ unexplained: 0 });
    expect(verdict(run, 15_000)).toEqual([]);
  });

  it('fails a contact list created twice whatever the policy and the results say', () => {
    const run = gracefulRun();
    run.vendor = { ...run.vendor, listsCreatedTwice: 1, listExtraCreations: 1 };
    expect(verdict(run, 15_000)).toEqual([
      '1 contact lists created more than once (1 extra) in a graceful round',
    ]);
    expect(verdict({ ...run, policy: 'fail' as const }, 15_000)).toContain(
      '1 contact lists created more than once (1 extra) in a graceful round',
    );
  });

  it('fails a stop slower than SHUTDOWN_TIMEOUT_MS, which a normal round lets through', () => {
    const run = gracefulRun();
    // The report's flag is stale on purpose: the verdict judges the stop's own figures.
    run.sigterms.push(stop({ slot: 'a', exitMs: 15_001, withinBound: true }));
    expect(verdict(run, 15_000)).toEqual([
      'SIGTERM of a (SIGTERM restart) ended after 15001 ms with 0; bound 15000 ms and exit 0',
    ]);
    expect(verdict({ ...run, graceful: false }, 15_000)).toEqual([]);
  });

  it('fails a stop that ended with a non-zero code or had to be killed', () => {
    const run = gracefulRun();
    run.sigterms.push(stop({ slot: 'a', exitMs: 900, exit: '1' }));
    run.sigterms.push(stop({ slot: 'c', reason: 'scale-down under load', exit: 'SIGKILL' }));
    expect(verdict(run, 15_000)).toEqual([
      'SIGTERM of a (SIGTERM restart) ended after 900 ms with 1; bound 15000 ms and exit 0',
      'SIGTERM of c (scale-down under load) ended after 1000 ms with SIGKILL; bound 15000 ms and exit 0',
    ]);
  });
});

describe('chaos verdict on a graceful round, beyond its stops and lists', () => {
  it('fails lag left behind and an ambiguous send without its mark under resend too', () => {
    const run = gracefulRun();
    run.drain = { ...run.drain, lagAfterStop: 3 };
    run.audit = { ...run.audit, ambiguousWithoutMark: 2 };
    expect(verdict(run, 15_000)).toEqual([
      '2 ambiguous sends without their mark',
      "consumer-group lag 0 at the drain's end and 3 after the final stop in a graceful round (-1: unread)",
    ]);
  });

  it('fails an unexplained double as a normal round does', () => {
    const run = gracefulRun();
    run.audit.doubles.unexplained = 1;
    expect(verdict(run, 15_000)).toEqual(['1 unexplained doubles']);
  });

  it('fails a round that killed instead of stopping, or skipped its SIGTERM restarts', () => {
    const run = gracefulRun();
    run.faults = { ...run.faults, kills: 1, sigtermRestarts: 20, sigtermRestartsSkipped: 2 };
    expect(verdict(run, 15_000)).toEqual([
      'harness: 20 of 22 SIGTERM restarts happened',
      'harness: 1 kill -9 in a graceful round',
    ]);
  });
});
