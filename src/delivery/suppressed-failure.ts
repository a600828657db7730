import type { ActionOutcome } from '../contracts/action-outcome';
import { DISPATCH_FAILURE_REASONS } from '../contracts/email-dispatch-failed.v1';
import { flagged } from './vendor-trouble';

/**
 * The outcome of an action none of whose `count` recipients (or members) may be mailed: they are
 * all on the suppression list for its template's category, so nothing was written. The message
 * counts them and never names one.
 */
export function suppressedFailure(
  count: number,
  what: 'recipient' | 'member',
  ambiguous = false,
): ActionOutcome {
  const plural = count === 1 ? `the ${what} is` : `all ${count} ${what}s are`;
  return flagged(
    {
      status: 'failed',
      errorCode: DISPATCH_FAILURE_REASONS.SUPPRESSED,
      reasonCode: 'SUPPRESSED',
      suppressedCount: count,
      message: `not sent: ${plural} on the suppression list`,
    },
    ambiguous,
  );
}
