import type { ChaosRunReport } from '../report/chaos-report';

/** Slack allowed beyond SHUTDOWN_TIMEOUT_MS for the process to leave the group and exit. */
export const SHUTDOWN_MARGIN_MS = 5_000;

/**
 * The reasons a run fails, each a sentence with its figure. The service's rules (nothing lost,
 * no unexplained double, a list's members included, a stop that ends, no crash, and under `fail` no
 * double, no list twice and every ambiguous send reported) come first; then the harness's own: a run that did not
 * inject the faults it promised, or could not see everything, proves nothing.
 */
export function verdict(
  run: Omit<ChaosRunReport, 'failures'>,
  shutdownTimeoutMs: number,
): string[] {
  const out: string[] = [];
  const a = run.audit;
  const fail = (condition: boolean, message: string) => condition && out.push(message);
  if (!run.drain.collectorCaughtUp) {
    // Results the harness did not read would all count as lost: say so, judge nothing else.
    return ['harness: the result topics were not read to their end; the results cannot be judged'];
  }

  fail(a.lostSends > 0, `${a.lostSends} lost sends (no accepted send and no failure result)`);
  fail(a.lostResults > 0, `${a.lostResults} lost results (an event/template without any result)`);
  fail(a.doubles.unexplained > 0, `${a.doubles.unexplained} unexplained doubles`);
  // Every member of a list created twice is a double of its order's action, judged above: under
  // `resend` a list written, then taken over unanswered, is created again (the policy's price,
  // as a campaign is sent again) and its results say so, or its members are unexplained doubles.
  // Under `fail` nothing may be created twice.
  fail(
    run.policy === 'fail' && run.vendor.listsCreatedTwice > 0,
    `${run.vendor.listsCreatedTwice} contact lists created more than once under the at-most-once policy`,
  );
  for (const t of run.sigterms) {
    fail(
      !t.withinBound,
      `SIGTERM of ${t.slot} (${t.reason}) ended after ${t.exitMs} ms with ${t.exit}; bound ${shutdownTimeoutMs + SHUTDOWN_MARGIN_MS} ms and exit 0`,
    );
  }
  // An instance may exit by itself with a code (it could not start its consumer, say): the
  // orchestrator restarts it, as the pool does. A signal no one sent is a crash: SIGABRT is V8
  // out of heap, which the image's heap limit must not allow under any of these faults.
  for (const c of run.faults.crashes.filter((crash) => crash.exit.startsWith('SIG'))) {
    const cause = c.exit === 'SIGABRT' ? ' (SIGABRT: out of heap)' : '';
    out.push(
      `${c.slot} ended by ${c.exit} at ${(c.atMs / 1000).toFixed(1)} s, a signal the harness did not send${cause}`,
    );
  }
  if (run.policy === 'fail') {
    fail(a.doubles.total > 0, `${a.doubles.total} doubles under the at-most-once policy`);
    fail(
      a.ambiguousWithoutMark > 0,
      `${a.ambiguousWithoutMark} ambiguous sends without an AMBIGUOUS_SEND result`,
    );
  }

  const f = run.faults;
  fail(f.kills < f.killsPlanned, `harness: ${f.kills} of ${f.killsPlanned} kills happened`);
  fail(
    f.brokerRestarts.filter((r) => !r.error).length < f.brokerRestartsPlanned,
    `harness: ${f.brokerRestarts.filter((r) => !r.error).length} of ${f.brokerRestartsPlanned} broker restarts succeeded`,
  );
  fail(
    f.redisRestarts.filter((r) => !r.error).length < f.redisRestartsPlanned,
    `harness: ${f.redisRestarts.filter((r) => !r.error).length} of ${f.redisRestartsPlanned} Redis restarts succeeded`,
  );
  fail(
    f.redisRestarts.some((r) => r.keysAfter < r.keysBefore),
    'harness: Redis lost keys across its restart (persistence is not on)',
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
  return out;
}

/** A SIGTERM that ended in time with exit code 0. */
export function withinBound(exitMs: number, exit: string, shutdownTimeoutMs: number): boolean {
  return exit === '0' && exitMs <= shutdownTimeoutMs + SHUTDOWN_MARGIN_MS;
}
