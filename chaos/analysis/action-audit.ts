import type { Policy } from '../config/chaos-options';
import { actionKey, type ResultRecord } from '../observe/result-collector';
import type { ExpectedAction } from '../traffic/chaos-workload';
import type { VendorLedger } from './vendor-ledger';

/** The per-(event, template) figures of a run. */
export interface ActionAudit {
  actions: number;
  /** Actions with at least one result, and the records on the result topics for them. */
  withResult: number;
  resultRecords: number;
  /** Records beyond the first per (event, template). */
  repeatedResultRecords: number;
  /** Actions whose records say different things (another request id, or success and failure). */
  conflictingResults: number;
  successes: number;
  failures: number;
  failuresByCode: Record<string, number>;
  deadLettered: number;
  /** Results marked ambiguous (`data.ambiguous` on a success, or `AMBIGUOUS_SEND`). */
  markedAmbiguous: number;
  lostSends: number;
  lostResults: number;
  /** Addresses the vendor accepted more than once for one action, by class. */
  doubles: { total: number; ambiguous: number; unexplained: number; extraSends: number };
  /** Actions in a request the vendor got in full but never answered (hang, reset, kill). */
  witnessedAmbiguous: number;
  /**
   * Ambiguous sends whose result does not say so: under `resend` a witnessed one without the
   * mark; under `fail` a witnessed or self-declared one without its AMBIGUOUS_SEND result.
   */
  ambiguousWithoutMark: number;
  /** Accepted by the vendor, yet reported failed for another reason than ambiguity. */
  sentButReportedFailed: number;
  /** Actions whose first result came while the faults were still on: the work done under chaos. */
  answeredUnderFaults: number;
  /** Broker time of the last first result: when the last action got its answer. */
  lastFirstResultTs: number;
  lastRecordTs: number;
  examples: { lost: string[]; unexplainedDoubles: string[]; ambiguousWithoutMark: string[] };
}

const FAILED = 'email.dispatch.failed.v1';
const EXAMPLES = 5;

/** Holds each expected action against the vendor's record and the result topics. */
export function auditActions(
  expected: ExpectedAction[],
  results: Map<string, ResultRecord[]>,
  ledger: VendorLedger,
  policy: Policy,
  faultsOffAt: number,
): ActionAudit {
  const a: ActionAudit = {
    actions: expected.length,
    withResult: 0,
    resultRecords: 0,
    repeatedResultRecords: 0,
    conflictingResults: 0,
    successes: 0,
    failures: 0,
    failuresByCode: {},
    deadLettered: 0,
    markedAmbiguous: 0,
    lostSends: 0,
    lostResults: 0,
    doubles: { total: 0, ambiguous: 0, unexplained: 0, extraSends: 0 },
    witnessedAmbiguous: 0,
    ambiguousWithoutMark: 0,
    sentButReportedFailed: 0,
    answeredUnderFaults: 0,
    lastFirstResultTs: 0,
    lastRecordTs: 0,
    examples: { lost: [], unexplainedDoubles: [], ambiguousWithoutMark: [] },
  };
  const example = (list: string[], action: ExpectedAction, why: string) => {
    if (list.length < EXAMPLES) list.push(`${action.eventId} ${action.template}: ${why}`);
  };
  for (const action of expected) {
    const records = [
      ...(results.get(actionKey(action.eventId, action.template)) ?? []),
      ...(results.get(actionKey(action.eventId, '*')) ?? []),
    ];
    const email = action.email.toLowerCase();
    const accepted =
      (action.kind === 'campaign' ? ledger.campaignAccepted : ledger.listAccepted).get(email) ?? 0;
    const failed = records.filter((r) => r.type === FAILED || r.type === 'dead-letter');
    const ambiguousFailure = failed.some((r) => r.errorCode === 'AMBIGUOUS_SEND');
    const marked = records.some((r) => r.ambiguous);

    a.resultRecords += records.length;
    if (records.length > 0) {
      a.withResult++;
      a.repeatedResultRecords += records.length - 1;
      const first = Math.min(...records.map((r) => r.ts));
      a.lastFirstResultTs = Math.max(a.lastFirstResultTs, first);
      if (first < faultsOffAt) a.answeredUnderFaults++;
      a.lastRecordTs = Math.max(a.lastRecordTs, ...records.map((r) => r.ts));
    } else {
      a.lostResults++;
      example(a.examples.lost, action, 'no result');
    }
    if (new Set(records.map((r) => r.outcome)).size > 1) a.conflictingResults++;
    if (records.some((r) => r.type !== FAILED && r.type !== 'dead-letter')) a.successes++;
    if (failed.length > 0) a.failures++;
    for (const code of new Set(failed.map((r) => r.errorCode ?? r.type))) {
      a.failuresByCode[code] = (a.failuresByCode[code] ?? 0) + 1;
    }
    if (records.some((r) => r.type === 'dead-letter')) a.deadLettered++;
    if (marked) a.markedAmbiguous++;

    if (accepted === 0 && failed.length === 0) {
      a.lostSends++;
      example(a.examples.lost, action, 'the vendor accepted nothing and no failure was reported');
    }
    if (accepted > 1) {
      a.doubles.total++;
      a.doubles.extraSends += accepted - 1;
      if (marked) a.doubles.ambiguous++;
      else {
        a.doubles.unexplained++;
        example(
          a.examples.unexplainedDoubles,
          action,
          `accepted ${accepted} times, result not ambiguous`,
        );
      }
    }
    if (accepted > 0 && failed.length > 0 && !ambiguousFailure) a.sentButReportedFailed++;

    // Written in full and never answered: ambiguous whatever the service believes. Under `fail`
    // a success the service itself marked ambiguous is one too (it should have been a failure).
    const unanswered = ledger.unanswered[action.kind].get(email);
    const witnessed = unanswered !== undefined;
    if (witnessed) a.witnessedAmbiguous++;
    const successMarked = records.some((r) => r.ambiguous && r.type !== FAILED);
    const unmarked =
      policy === 'fail' ? (witnessed || successMarked) && !ambiguousFailure : witnessed && !marked;
    if (unmarked) {
      a.ambiguousWithoutMark++;
      const why = policy === 'fail' ? 'no AMBIGUOUS_SEND result' : 'result not marked ambiguous';
      const seen = unanswered
        ? `request ${unanswered.outcome} at ${new Date(unanswered.at).toISOString()}`
        : 'success marked ambiguous';
      const said = [...new Set(records.map((r) => r.type))].join(', ') || 'no result';
      example(
        a.examples.ambiguousWithoutMark,
        action,
        `${why} (${seen}; accepted ${accepted}×; ${said})`,
      );
    }
  }
  return a;
}
