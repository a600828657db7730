import { Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import type { ActionOutcome } from '../contracts/action-outcome';
import type { DispatchFailureCode } from '../contracts/email-dispatch-failed.v1';
import {
  VendorAuthError,
  VendorError,
  VendorNetworkError,
  VendorRequestError,
  VendorResponseError,
} from '../email-api/vendor.errors';
import { MetricsService } from '../metrics/metrics.service';
import { VendorGate } from './vendor.gate';

/**
 * What vendor trouble does to an action, in one place: trouble that time can cure (an auth
 * refusal, failures that outlived the client's retries) closes the gate, for every replica, and
 * the action waits for it to reopen; a permanent refusal becomes a failed outcome with its
 * published code; a lost answer follows `AMBIGUOUS_SEND_POLICY` and is counted once per action.
 */
@Injectable()
export class VendorTrouble {
  constructor(
    private readonly config: AppConfig,
    private readonly gate: VendorGate,
    private readonly metrics: MetricsService,
  ) {}

  /** Whether an action may go to the vendor now (the gate is open and the service not stopping). */
  get passable(): boolean {
    return this.gate.passable;
  }

  /** Resolves once the gate is open; rejects once the service stops (the action is given back). */
  waitOpen(): Promise<void> {
    return this.gate.waitOpen();
  }

  /**
   * The error that ends the action (its failed outcome), or undefined when time can cure it: the
   * gate is then closed for it, and the action tries again once it reopens. Throws on what is
   * not the vendor's (a bug, a claim lost, the stop): its caller gives the action back.
   */
  finalOrPaused(error: unknown): VendorError | undefined {
    if (!(error instanceof VendorError)) throw error;
    if (!isTransient(error)) return error;
    this.pauseFor(error);
    return undefined;
  }

  /** Closes the gate for trouble time can cure: the auth pause, or the outage pause. */
  pauseFor(error: VendorError): void {
    const { pauseOnAuthFailureMs, pauseOnVendorFailureMs } = this.config.batching;
    if (error instanceof VendorAuthError) {
      this.metrics.vendorPauses.inc({ reason: 'auth' });
      this.gate.trip('auth', pauseOnAuthFailureMs, `status ${error.status ?? '?'}`);
      return;
    }
    if (this.gate.trip('outage', pauseOnVendorFailureMs, error.message)) {
      this.metrics.vendorPauses.inc({ reason: 'outage' });
    }
  }

  /** Whether a send whose fate is unknown is failed as ambiguous rather than sent again. */
  get failsAmbiguous(): boolean {
    return this.config.idempotency.ambiguousSendPolicy === 'fail';
  }

  /** Counts an action's lost answers once, whatever the number of attempts they took. */
  countLostAnswers(attempts: number): void {
    if (attempts === 0) return;
    this.metrics.ambiguousSend('lost-answer', this.config.idempotency.ambiguousSendPolicy);
  }
}

/** Trouble that time can cure: an auth refusal (keys get fixed) or a retriable failure. */
export function isTransient(error: VendorError): boolean {
  return error instanceof VendorAuthError || error.retriable;
}

/** `ambiguous` flags an outcome some attempt of which may have reached the vendor unanswered. */
export function flagged(outcome: ActionOutcome, ambiguous: boolean): ActionOutcome {
  return ambiguous ? { ...outcome, ambiguous: true } : outcome;
}

export function failedOutcome(error: VendorError, prefix = '', ambiguous = false): ActionOutcome {
  return flagged(
    {
      status: 'failed',
      errorCode: failureCode(error),
      vendorStatus: error.status,
      message: `${prefix}${error.message}`,
    },
    ambiguous,
  );
}

/**
 * The one place a vendor error becomes a published `errorCode`: by what went wrong, never by
 * class name, so renaming an error class changes nothing for subscribers. Only errors that end
 * an action reach it (auth refusals and retriable trouble pause instead); the codes for the
 * others are there so that a change of that policy still publishes a true code.
 */
export function failureCode(error: VendorError): DispatchFailureCode {
  if (error instanceof VendorRequestError) return 'INVALID_REQUEST';
  if (error instanceof VendorResponseError) return 'VENDOR_BAD_RESPONSE';
  if (error instanceof VendorNetworkError || error.retriable) return 'VENDOR_UNAVAILABLE';
  const status = error.status;
  if (status !== undefined && status >= 400 && status < 500) return 'VENDOR_REJECTED';
  // A redirect (refused, so that no key is replayed elsewhere) or a 5xx: the vendor's side.
  if (status !== undefined) return 'VENDOR_UNAVAILABLE';
  return 'INTERNAL_ERROR';
}

/** At-most-once: a send that may have reached the vendor is reported, not sent again. */
export function ambiguousFailure(detail: string): ActionOutcome {
  return {
    status: 'failed',
    errorCode: 'AMBIGUOUS_SEND' satisfies DispatchFailureCode,
    message: `the vendor may or may not have this send (${detail}); not sent again (AMBIGUOUS_SEND_POLICY=fail): redrive it if it did not arrive`,
    ambiguous: true,
  };
}
