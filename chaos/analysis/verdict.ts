import type { ChaosRunReport } from '../report/chaos-report';

/** Slack allowed beyond SHUTDOWN_TIMEOUT_MS for the process to leave the group and exit. */
export const SHUTDOWN_MARGIN_MS = 5_000;

type Run = Omit<ChaosRunReport, 'failures'>;
type Fail = (condition: boolean, message: string) => void;

/**
 * The reasons a run fails, each a sentence with its figure. The service's rules (nothing lost,
 * no unexplained double, a list's members included, a stop that ends, no crash, and under `fail` no
 * double, no list twice and every ambiguous send reported) come first, then a graceful round's
 * stricter ones; then the harness's own: a run that did not inject the faults it promised, or
 * could not see everything, proves nothing.
 */
export function verdict(run: Run, shutdownTimeoutMs: number): string[] {
  if (!run.drain.collectorCaughtUp) {
    // Results the harness did not read would all count as lost: say so, judge nothing else.
    return ['harness: the result topics were not read to their end; the results cannot be judged'];
  }
  const out: string[] = [];
  const fail: Fail = (condition, message) => condition && out.push(message);
  serviceRules(run, shutdownTimeoutMs, fail);
  if (run.graceful) gracefulRules(run, fail);
  harnessRules(run, fail);
  return out;
}

function serviceRules(run: Run, shutdownTimeoutMs: number, fail: Fail): void {
  const a = run.audit;
  fail(a.lostSends > 0, `${a.lostSends} lost sends (no accepted send and no failure result)`);
  fail(a.lostResults > 0, `${a.lostResults} lost results (an event/template without any result)`);
  fail(a.doubles.unexplained > 0, `${a.doubles.unexplained} unexplained doubles`);
  // Every member of a list created twice is a double of its order's action, judged above: under
  // `resend` a list written, then taken over unanswered, is created again (the policy's price,
  // as a campaign is sent again) and its results say so, or its members are unexplained doubles.
  // Under `fail` nothing may be created twice; a graceful round judges lists on its own.
  fail(
    run.policy === 'fail' && !run.graceful && run.vendor.listsCreatedTwice > 0,
    `${run.vendor.listsCreatedTwice} contact lists created more than once under the at-most-once policy`,
  );
  // Judged from the stop's own figures, not the report's flag, so that the bound is this one.
  const bound = sigtermBoundMs(shutdownTimeoutMs, run.graceful);
  for (const t of run.sigterms) {
    fail(
      !withinBound(t.exitMs, t.exit, bound),
      `SIGTERM of ${t.slot} (${t.reason}) ended after ${t.exitMs} ms with ${t.exit}; bound ${bound} ms and exit 0`,
    );
  }
  // An instance may exit by itself with a code (it could not start its consumer, say): the
  // orchestrator restarts it, as the pool does. A signal no one sent is a crash: SIGABRT is V8
  // out of heap, which the image's heap limit must not allow under any of these faults.
  for (const c of run.faults.crashes.filter((crash) => crash.exit.startsWith('SIG'))) {
    const cause = c.exit === 'SIGABRT' ? ' (SIGABRT: out of heap)' : '';
    fail(
      true,
      `${c.slot} ended by ${c.exit} at ${(c.atMs / 1000).toFixed(1)} s, a signal the harness did not send${cause}`,
    );
  }
  fail(
    run.policy === 'fail' && a.doubles.total > 0,
    `${a.doubles.total} doubles under the at-most-once policy`,
  );
  // A graceful round asks every policy to mark what it could not know, not only `fail`.
  fail(
    (run.policy === 'fail' || run.graceful === true) && a.ambiguousWithoutMark > 0,
    `${a.ambiguousWithoutMark} ambiguous sends without ${run.policy === 'fail' ? 'an AMBIGUOUS_SEND result' : 'their mark'}`,
  );
}

/**
 * What a graceful round adds: a stop hands its work over, so no list is created twice under any
 * policy (a list's name is its own key, and a stop that waits for its answer never leaves one
 * in doubt), and the group ends with nothing left to read. Doubles are judged as ever: only
 * those explained by a request the vendor left unanswered past the stop's bound, and marked so,
 * may remain. The stricter SIGTERM bound is in `sigtermBoundMs`.
 */
function gracefulRules(run: Run, fail: Fail): void {
  const v = run.vendor;
  fail(
    v.listsCreatedTwice > 0,
    `${v.listsCreatedTwice} contact lists created more than once (${v.listExtraCreations} extra) in a graceful round`,
  );
  const { lagAtDrainEnd, lagAfterStop } = run.drain;
  fail(
    lagAtDrainEnd !== 0 || lagAfterStop !== 0,
    `consumer-group lag ${lagAtDrainEnd} at the drain's end and ${lagAfterStop} after the final stop in a graceful round (-1: unread)`,
  );
}

function harnessRules(run: Run, fail: Fail): void {
  const f = run.faults;
  fail(f.kills < f.killsPlanned, `harness: ${f.kills} of ${f.killsPlanned} kills happened`);
  // Reports written before graceful rounds have neither figure; nothing was planned then.
  const restarts = f.sigtermRestarts ?? 0;
  const restartsPlanned = f.sigtermRestartsPlanned ?? 0;
  fail(
    restarts < restartsPlanned,
    `harness: ${restarts} of ${restartsPlanned} SIGTERM restarts happened`,
  );
  fail(run.graceful === true && f.kills > 0, `harness: ${f.kills} kill -9 in a graceful round`);
  const brokerOk = f.brokerRestarts.filter((r) => !r.error).length;
  fail(
    brokerOk < f.brokerRestartsPlanned,
    `harness: ${brokerOk} of ${f.brokerRestartsPlanned} broker restarts succeeded`,
  );
  const redisOk = f.redisRestarts.filter((r) => !r.error).length;
  fail(
    redisOk < f.redisRestartsPlanned,
    `harness: ${redisOk} of ${f.redisRestartsPlanned} Redis restarts succeeded`,
  );
  fail(
    f.redisRestarts.some((r) => r.keysAfter < r.keysBefore),
    'harness: Redis lost keys across its restart (persistence is not on)',
  );
  // A --cluster run's own faults: the kill and revival of a broker, and a promotion by Sentinel.
  const brokerKills = (f.brokerKills ?? []).filter((k) => !k.error).length;
  fail(
    brokerKills < (f.brokerKillsPlanned ?? 0),
    `harness: ${brokerKills} of ${f.brokerKillsPlanned} broker kills happened and the node came back`,
  );
  const failovers = (f.redisFailovers ?? []).filter((r) => !r.error).length;
  fail(
    failovers < (f.redisFailoversPlanned ?? 0),
    `harness: ${failovers} of ${f.redisFailoversPlanned} Redis failovers promoted a replica and got the old node back`,
  );
  fail(
    run.load.eventsMissingFromInput > 0,
    `harness: ${run.load.eventsMissingFromInput} produced events never reached the input topics`,
  );
  fail(!run.vendor.recordComplete, 'harness: the sandbox did not keep every request');
  fail(
    run.vendor.foreignAddresses > 0,
    `harness: ${run.vendor.foreignAddresses} accepted addresses belong to no event of the run`,
  );
}

/**
 * What a SIGTERM stop may take. A normal round allows the margin the service's own stop limit
 * has; a graceful round holds the stop to SHUTDOWN_TIMEOUT_MS itself, as nothing else disturbs it.
 */
export function sigtermBoundMs(shutdownTimeoutMs: number, graceful: boolean | undefined): number {
  return graceful ? shutdownTimeoutMs : shutdownTimeoutMs + SHUTDOWN_MARGIN_MS;
}

/** A SIGTERM that ended within `boundMs` with exit code 0. */
export function withinBound(exitMs: number, exit: string, boundMs: number): boolean {
  return exit === '0' && exitMs <= boundMs;
}

/** The longest SIGTERM stop of a run, or undefined when none was sent. */
export function slowestStop(run: Pick<Run, 'sigterms'>): Run['sigterms'][number] | undefined {
  return run.sigterms.reduce<Run['sigterms'][number] | undefined>(
    (slowest, t) => (slowest && slowest.exitMs >= t.exitMs ? slowest : t),
    undefined,
  );
}
