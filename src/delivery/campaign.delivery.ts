import { Inject, Injectable } from '@nestjs/common';
import type { ActionOutcome } from '../contracts/action-outcome';
import type { CampaignRecipient } from '../email-api/vendor.types';
import type { CampaignAction } from '../templates/planner';
import type { ActionTicket } from './action-ticket';
import { CampaignBatcher, type RecipientResults } from './campaign.batcher';
import {
  ambiguousFailure,
  failedOutcome,
  flagged,
  isTransient,
  VendorTrouble,
} from './vendor-trouble';
import { suppressedFailure } from './suppressed-failure';

/** What a campaign action's attempts got through so far. */
interface SentSoFar {
  requestIds: string[];
  /** Recipients withheld as suppressed: not sent, and never tried again. */
  suppressed: number;
  message: string;
  batchRecipientCount: number;
  ambiguous: boolean;
}

/**
 * Carries one campaign action to the vendor and back to its outcome. Its recipients join a
 * batched request (`CampaignBatcher`); the gate's pauses and the vendor's transient failures
 * cost time, and only the recipients whose request failed go again. The action ends `sent` once
 * every recipient is accepted, or `failed` on a permanent refusal or, under
 * `AMBIGUOUS_SEND_POLICY=fail`, on a lost answer.
 */
@Injectable()
export class CampaignDelivery {
  constructor(
    @Inject(CampaignBatcher) private readonly batcher: CampaignBatcher,
    private readonly trouble: VendorTrouble,
  ) {}

  async deliver(action: CampaignAction, ticket: ActionTicket): Promise<ActionOutcome> {
    const soFar: SentSoFar = {
      requestIds: [],
      suppressed: 0,
      message: '',
      batchRecipientCount: 0,
      ambiguous: ticket.ambiguous,
    };
    const batched = { claim: ticket.claim, category: ticket.category, trace: ticket.trace };
    let pending: CampaignRecipient[] = action.recipients;
    for (;;) {
      if (!this.trouble.passable) await this.trouble.waitOpen();
      let results: RecipientResults;
      try {
        results = await this.batcher.add(action.batchKey, action.content, pending, batched);
      } catch (error) {
        const final = this.trouble.finalOrPaused(error);
        if (final) return failedOutcome(final);
        continue;
      }
      this.trouble.countLostAnswers(results.ambiguousAttempts);
      addSent(soFar, results);
      if (results.failed.length === 0) return doneOutcome(action, soFar);
      const final = this.failedFor(action, results.failed, soFar);
      if (final) return final;
      pending = results.failed.map((f) => f.recipient);
    }
  }

  /**
   * The outcome that some recipients' failure ends the action with, or undefined when time can
   * cure it: the gate then pauses once for the batch's trouble, and they go again.
   */
  private failedFor(
    action: CampaignAction,
    failed: RecipientResults['failed'],
    soFar: SentSoFar,
  ): ActionOutcome | undefined {
    const errors = failed.map((f) => f.error);
    const unknown = errors.find((e) => e.ambiguous);
    if (unknown && this.trouble.failsAmbiguous) return ambiguousFailure(unknown.message);
    const permanent = errors.find((e) => !isTransient(e));
    if (permanent) {
      const total = action.recipients.length;
      const sentCount = total - failed.length;
      const prefix = sentCount > 0 ? `${sentCount} of ${total} recipients sent; ` : '';
      return failedOutcome(permanent, prefix, soFar.ambiguous);
    }
    this.trouble.pauseFor(errors[0]);
    return undefined;
  }
}

/** Adds what `results` got through: its requests (each once, in order), its size, its doubt. */
function addSent(soFar: SentSoFar, results: RecipientResults): void {
  soFar.suppressed += results.suppressed.length;
  for (const { requestId } of results.sent) {
    if (!soFar.requestIds.includes(requestId)) soFar.requestIds.push(requestId);
  }
  soFar.message = results.sent[0]?.message ?? soFar.message;
  soFar.batchRecipientCount = Math.max(soFar.batchRecipientCount, results.batchRecipientCount);
  soFar.ambiguous ||= results.ambiguousAttempts > 0;
}

/**
 * Every recipient answered: `sent` with every request that carried the action, the largest of
 * them, ambiguous if any attempt was, and how many were withheld as suppressed; or, when every
 * recipient was suppressed, the failure that says so (nothing was written).
 */
function doneOutcome(action: CampaignAction, soFar: SentSoFar): ActionOutcome {
  const total = action.recipients.length;
  if (soFar.suppressed >= total) return suppressedFailure(total, 'recipient', soFar.ambiguous);
  return flagged(
    {
      status: 'sent',
      requestIds: soFar.requestIds,
      message: soFar.message,
      campaignId: action.content.campaignId,
      ...(action.locale ? { locale: action.locale } : {}),
      recipientCount: total - soFar.suppressed,
      batchRecipientCount: soFar.batchRecipientCount,
      ...(soFar.suppressed > 0 ? { suppressedCount: soFar.suppressed } : {}),
    },
    soFar.ambiguous,
  );
}
