import type { Context } from '@opentelemetry/api';
import { Inject, Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { MetricsService } from '../metrics/metrics.service';
import type { CampaignAction, ContactListAction, TemplateAction } from '../templates/planner';
import {
  VendorAuthError,
  VendorError,
  VendorNetworkError,
  VendorRequestError,
  VendorResponseError,
} from '../email-api/vendor.errors';
import type { CampaignRecipient } from '../email-api/vendor.types';
import { CampaignBatcher, type CampaignDelivery } from './campaign.batcher';
import { ContactListBatcher, type ContactListDelivery } from './contact-list.batcher';
import type { ActionOutcome } from '../contracts/action-outcome';
import type { DispatchFailureCode } from '../contracts/email-dispatch-failed.v1';
import type { HeldClaim } from '../idempotency/idempotency.store';
import { VendorGate } from './vendor.gate';

/** A claimed action on its way to the vendor. */
export interface ActionTicket {
  claim: HeldClaim;
  /** An earlier attempt may already have reached the vendor (taken over, policy `resend`). */
  ambiguous: boolean;
  /** Called when the outcome starts waiting on a timer (a contact-list window). */
  park?: () => void;
  /** The event's trace: the vendor request that carries the action links to it. */
  trace?: Context;
}

/**
 * Carries one template action to the vendor and back to an outcome. Vendor trouble costs time,
 * not data: auth refusals and failures that outlived the client's retries close the gate and
 * the action tries again when it reopens; only permanent refusals (other 4xx, invalid requests)
 * become `failed` outcomes. A request whose fate is unknown (written, then no answer) is sent
 * again or failed as ambiguous, as `AMBIGUOUS_SEND_POLICY` says, and counted either way.
 */
@Injectable()
export class DeliveryService {
  constructor(
    private readonly config: AppConfig,
    @Inject(CampaignBatcher) private readonly campaigns: CampaignBatcher,
    @Inject(ContactListBatcher) private readonly contactLists: ContactListBatcher,
    private readonly gate: VendorGate,
    private readonly metrics: MetricsService,
  ) {}

  /** Sends whatever is still gathering, now rather than after its linger: called at stop. */
  async flush(): Promise<void> {
    await Promise.all([this.campaigns.drain(), this.contactLists.drain()]);
  }

  execute(action: TemplateAction, ticket: ActionTicket): Promise<ActionOutcome> {
    return action.kind === 'campaign'
      ? this.campaign(action, ticket)
      : this.contactList(action, ticket);
  }

  private async campaign(action: CampaignAction, ticket: ActionTicket): Promise<ActionOutcome> {
    const requestIds = new Set<string>();
    let message = '';
    let batchRecipientCount = 0;
    let ambiguous = ticket.ambiguous;
    // The outcome if `delivery` (of the recipients still pending) ends the action; recorded by
    // the batcher the moment the vendor accepts, so it must not change any state here.
    const sentWith = (delivery: CampaignDelivery): ActionOutcome =>
      flagged(
        {
          status: 'sent',
          requestIds: [...new Set([...requestIds, ...delivery.sent.map((s) => s.requestId)])],
          message: delivery.sent[0]?.message ?? message,
          campaignId: action.content.campaignId,
          recipientCount: action.recipients.length,
          batchRecipientCount: Math.max(batchRecipientCount, delivery.batchRecipientCount),
        },
        ambiguous || delivery.ambiguousAttempts > 0,
      );
    let pending: CampaignRecipient[] = action.recipients;
    for (;;) {
      await this.gate.waitOpen();
      let delivery: CampaignDelivery;
      try {
        delivery = await this.campaigns.add(action.batchKey, action.content, pending, {
          claim: ticket.claim,
          trace: ticket.trace,
          outcomeOf: (d) => (d.failed.length === 0 ? sentWith(d) : undefined),
        });
      } catch (error) {
        const permanent = this.permanentOrPause(error);
        if (permanent) return failedOutcome(permanent);
        continue;
      }
      this.countLostAnswers(delivery.ambiguousAttempts);
      if (delivery.failed.length === 0) return sentWith(delivery);
      for (const sent of delivery.sent) requestIds.add(sent.requestId);
      message = delivery.sent[0]?.message ?? message;
      batchRecipientCount = Math.max(batchRecipientCount, delivery.batchRecipientCount);
      ambiguous ||= delivery.ambiguousAttempts > 0;
      const errors = delivery.failed.map((f) => f.error);
      const unknown = errors.find((e) => e.ambiguous);
      if (unknown && this.config.idempotency.ambiguousSendPolicy === 'fail') {
        return ambiguousFailure(unknown.message);
      }
      const permanent = errors.find((e) => !isTransient(e));
      if (permanent) {
        const sentCount = action.recipients.length - delivery.failed.length;
        return failedOutcome(
          permanent,
          sentCount > 0 ? `${sentCount} of ${action.recipients.length} recipients sent; ` : '',
          ambiguous,
        );
      }
      // Pause once for the batch's trouble; only the recipients whose request failed go again.
      this.permanentOrPause(errors[0]);
      pending = delivery.failed.map((f) => f.recipient);
    }
  }

  private async contactList(
    action: ContactListAction,
    ticket: ActionTicket,
  ): Promise<ActionOutcome> {
    let ambiguous = ticket.ambiguous;
    const createdWith = (d: ContactListDelivery): ActionOutcome =>
      flagged(
        { status: 'created', listId: d.listId, name: d.name, memberCount: d.memberCount },
        ambiguous || d.ambiguousAttempts > 0,
      );
    const listed = { claim: ticket.claim, trace: ticket.trace, outcomeOf: createdWith };
    for (;;) {
      await this.gate.waitOpen();
      try {
        let created: ContactListDelivery;
        if (action.mode === 'exact') {
          created = await this.contactLists.createExact(action.name, action.members, listed);
        } else {
          // The list is made when the window closes: the transport need not wait for it.
          ticket.park?.();
          created = await this.contactLists.addToWindow(
            action.listKey,
            action.window,
            action.members,
            listed,
          );
        }
        this.countLostAnswers(created.ambiguousAttempts);
        return createdWith(created);
      } catch (error) {
        if (error instanceof VendorError && error.ambiguous) {
          this.countLostAnswers(1);
          if (this.config.idempotency.ambiguousSendPolicy === 'fail') {
            return ambiguousFailure(error.message);
          }
          ambiguous = true;
        }
        const permanent = this.permanentOrPause(error);
        if (permanent) return failedOutcome(permanent, '', ambiguous);
      }
    }
  }

  /** Counts an action's lost answers once, whatever the number of attempts they took. */
  private countLostAnswers(attempts: number): void {
    if (attempts === 0) return;
    this.metrics.ambiguousSend('lost-answer', this.config.idempotency.ambiguousSendPolicy);
  }

  /** Pauses for transient trouble (and returns undefined); returns the error if it is final. */
  private permanentOrPause(error: unknown): VendorError | undefined {
    // Not the vendor's doing (a bug, or a claim lost): let it surface; the caller decides.
    if (!(error instanceof VendorError)) throw error;
    if (error instanceof VendorAuthError) {
      this.metrics.vendorPauses.inc({ reason: 'auth' });
      this.gate.trip(
        'auth',
        this.config.batching.pauseOnAuthFailureMs,
        `status ${error.status ?? '?'}`,
      );
      return undefined;
    }
    if (!error.retriable) return error;
    if (this.gate.trip('outage', this.config.batching.pauseOnVendorFailureMs, error.message)) {
      this.metrics.vendorPauses.inc({ reason: 'outage' });
    }
    return undefined;
  }
}

function isTransient(error: VendorError): boolean {
  return error instanceof VendorAuthError || error.retriable;
}

function flagged(outcome: ActionOutcome, ambiguous: boolean): ActionOutcome {
  return ambiguous ? { ...outcome, ambiguous: true } : outcome;
}

function failedOutcome(error: VendorError, prefix = '', ambiguous = false): ActionOutcome {
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
