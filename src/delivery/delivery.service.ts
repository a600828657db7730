import type { Context } from '@opentelemetry/api';
import { Inject, Injectable } from '@nestjs/common';
import type { CampaignAction, ContactListAction } from '../templates/planner';
import { VendorError } from '../email-api/vendor.errors';
import type { CampaignRecipient, ContactMember } from '../email-api/vendor.types';
import { CampaignBatcher, type BatchedAction, type CampaignDelivery } from './campaign.batcher';
import {
  ContactListBatcher,
  type ContactListDelivery,
  type ListSend,
} from './contact-list.batcher';
import type { ActionOutcome } from '../contracts/action-outcome';
import {
  IDEMPOTENCY_STORE,
  type HeldClaim,
  type IdempotencyStore,
} from '../idempotency/idempotency.store';
import {
  ambiguousFailure,
  failedOutcome,
  flagged,
  isTransient,
  VendorTrouble,
} from './vendor-trouble';

/** A contact-list action that creates exactly the list it names. */
export type ExactListAction = Extract<ContactListAction, { mode: 'exact' }>;

/** What goes to the vendor from here: a campaign, or an exact contact list. */
export type DeliveredAction = CampaignAction | ExactListAction;

/** A claimed action on its way to the vendor. */
export interface ActionTicket {
  claim: HeldClaim;
  /** An earlier attempt may already have reached the vendor (taken over, policy `resend`). */
  ambiguous: boolean;
  /** The event's trace: the vendor request that carries the action links to it. */
  trace?: Context;
  /**
   * Told when the outcome about to be returned is recorded in the idempotency store already (the
   * moment the vendor answered), so that the caller does not write it a second time.
   */
  recorded?: () => void;
}

/** How a campaign's first attempt went, when its caller followed it ({@link DeliveryService.startCampaign}). */
export type CampaignAttempt = { delivery: CampaignDelivery } | { error: unknown };

/** What {@link DeliveryService.startCampaign} tells its caller, once. Neither may throw. */
export interface CampaignFollower {
  /** The vendor accepted every recipient: the outcome, and whether it is recorded already. */
  sent(outcome: ActionOutcome, recorded: boolean): void;
  /** Anything else: the action goes on as `execute` would have; this is its outcome to come. */
  continued(outcome: Promise<ActionOutcome>): void;
}

/** What a campaign action's earlier attempts got through, before recipients that failed. */
interface SentSoFar {
  requestIds: readonly string[];
  message: string;
  batchRecipientCount: number;
  ambiguous: boolean;
}

const NOTHING_SENT: SentSoFar = {
  requestIds: [],
  message: '',
  batchRecipientCount: 0,
  ambiguous: false,
};
const NOTHING_SENT_AMBIGUOUS: SentSoFar = { ...NOTHING_SENT, ambiguous: true };

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
    @Inject(CampaignBatcher) private readonly campaigns: CampaignBatcher,
    @Inject(ContactListBatcher) private readonly contactLists: ContactListBatcher,
    @Inject(IDEMPOTENCY_STORE) private readonly claims: IdempotencyStore,
    private readonly trouble: VendorTrouble,
  ) {}

  /** The outcome of a campaign or of an exact contact list (a window's is `WindowPlacement`'s). */
  execute(action: DeliveredAction, ticket: ActionTicket): Promise<ActionOutcome> {
    return action.kind === 'campaign'
      ? this.campaign(action, ticket)
      : this.contactList(action, ticket);
  }

  /**
   * A campaign action's first attempt, for a caller that follows many actions at once (the
   * runner's common path): the recipients join their batch now, and `then` hears once how it
   * went, with no promise or suspended function of the action's own while it waits (thousands
   * wait at once). Every recipient accepted comes to `sent`; anything else (the gate closed, a
   * recipient failed, the claim lost, an error) goes on from that attempt exactly as `execute`
   * goes on, and comes to `continued`.
   */
  startCampaign(action: CampaignAction, ticket: ActionTicket, then: CampaignFollower): void {
    if (!this.trouble.passable) {
      then.continued(this.campaign(action, ticket));
      return;
    }
    const soFar = ticket.ambiguous ? NOTHING_SENT_AMBIGUOUS : NOTHING_SENT;
    const batched: BatchedAction = {
      claim: ticket.claim,
      trace: ticket.trace,
      outcomeOf: (d) => (d.failed.length === 0 ? sentOutcome(action, d, soFar) : undefined),
    };
    this.campaigns.enter(action.batchKey, action.content, action.recipients, batched, {
      delivered: (delivery) => {
        if (delivery.failed.length > 0) {
          then.continued(this.campaign(action, ticket, { delivery }));
          return;
        }
        this.trouble.countLostAnswers(delivery.ambiguousAttempts);
        then.sent(delivery.outcome ?? sentOutcome(action, delivery, soFar), delivery.recorded);
      },
      failed: (error) => then.continued(this.campaign(action, ticket, { error })),
    });
  }

  /**
   * Sends a campaign action's recipients until every one is accepted, or refused for good: the
   * gate's pauses and the vendor's transient failures cost time, and only the recipients whose
   * request failed go again. `first`: an attempt made already (`startCampaign`).
   */
  private async campaign(
    action: CampaignAction,
    ticket: ActionTicket,
    first?: CampaignAttempt,
  ): Promise<ActionOutcome> {
    const soFar = { ...(ticket.ambiguous ? NOTHING_SENT_AMBIGUOUS : NOTHING_SENT) };
    // The outcome if `delivery` (of the recipients still pending) ends the action; recorded by
    // the batcher the moment the vendor accepts, so it must not change any state here.
    const batched: BatchedAction = {
      claim: ticket.claim,
      trace: ticket.trace,
      outcomeOf: (d) => (d.failed.length === 0 ? sentOutcome(action, d, soFar) : undefined),
    };
    let pending: CampaignRecipient[] = action.recipients;
    let attempt = first;
    for (;;) {
      if (!attempt) {
        if (!this.trouble.passable) await this.trouble.waitOpen();
        attempt = await this.campaigns.add(action.batchKey, action.content, pending, batched).then(
          (delivery) => ({ delivery }),
          (error: unknown) => ({ error }),
        );
      }
      const made = attempt;
      attempt = undefined;
      if ('error' in made) {
        const final = this.trouble.finalOrPaused(made.error);
        if (final) return failedOutcome(final);
        continue;
      }
      const { delivery } = made;
      this.trouble.countLostAnswers(delivery.ambiguousAttempts);
      if (delivery.failed.length === 0) {
        if (!delivery.recorded) return sentOutcome(action, delivery, soFar);
        ticket.recorded?.();
        return delivery.outcome ?? sentOutcome(action, delivery, soFar);
      }
      soFar.requestIds = requestIdsOf(soFar.requestIds, delivery.sent);
      soFar.message = delivery.sent[0]?.message ?? soFar.message;
      soFar.batchRecipientCount = Math.max(soFar.batchRecipientCount, delivery.batchRecipientCount);
      soFar.ambiguous ||= delivery.ambiguousAttempts > 0;
      const errors = delivery.failed.map((f) => f.error);
      const unknown = errors.find((e) => e.ambiguous);
      if (unknown && this.trouble.failsAmbiguous) {
        return ambiguousFailure(unknown.message);
      }
      const permanent = errors.find((e) => !isTransient(e));
      if (permanent) {
        const sentCount = action.recipients.length - delivery.failed.length;
        return failedOutcome(
          permanent,
          sentCount > 0 ? `${sentCount} of ${action.recipients.length} recipients sent; ` : '',
          soFar.ambiguous,
        );
      }
      // Pause once for the batch's trouble; only the recipients whose request failed go again.
      this.trouble.pauseFor(errors[0]);
      pending = delivery.failed.map((f) => f.recipient);
    }
  }

  private contactList(action: ExactListAction, ticket: ActionTicket): Promise<ActionOutcome> {
    const { claim } = ticket;
    return this.createList(action.name, action.members, {
      ambiguous: ticket.ambiguous,
      send: {
        markSending: async () => (await this.claims.markSending([claim])).has(claim.key),
        traces: [ticket.trace],
      },
      // Recorded the moment the vendor answers; if that write fails, the runner records it
      // again when it resumes, so a failed record here costs nothing.
      created: (outcome) =>
        this.claims.complete([{ key: claim.key, outcome }]).then(
          () => ticket.recorded?.(),
          () => undefined,
        ),
    });
  }

  /**
   * Creates one contact list through the gate: the exact-list command's, or a window's when it
   * closes. Transient trouble pauses and tries again; a permanent refusal is a `failed` outcome;
   * a lost answer follows `AMBIGUOUS_SEND_POLICY`. `created` runs the moment the vendor answers.
   */
  async createList(
    name: string,
    members: ContactMember[],
    how: {
      ambiguous: boolean;
      send: ListSend;
      created: (outcome: ActionOutcome) => Promise<unknown>;
    },
  ): Promise<ActionOutcome> {
    let ambiguous = how.ambiguous;
    for (;;) {
      await this.trouble.waitOpen();
      let created: ContactListDelivery;
      try {
        created = await this.contactLists.createExact(name, members, how.send);
      } catch (error) {
        if (error instanceof VendorError && error.ambiguous) {
          this.trouble.countLostAnswers(1);
          if (this.trouble.failsAmbiguous) {
            return ambiguousFailure(error.message);
          }
          ambiguous = true;
        }
        const final = this.trouble.finalOrPaused(error);
        if (final) return failedOutcome(final, '', ambiguous);
        continue;
      }
      this.trouble.countLostAnswers(created.ambiguousAttempts);
      const outcome = flagged(
        {
          status: 'created',
          listId: created.listId,
          name: created.name,
          memberCount: created.memberCount,
        },
        ambiguous || created.ambiguousAttempts > 0,
      );
      await how.created(outcome);
      return outcome;
    }
  }
}

/** The requests that carried the action so far, each once, in the order they were accepted. */
function requestIdsOf(earlier: readonly string[], sent: CampaignDelivery['sent']): string[] {
  const ids = [...earlier];
  for (const { requestId } of sent) if (!ids.includes(requestId)) ids.push(requestId);
  return ids;
}

/**
 * The outcome of a campaign action whose last pending recipients `delivery` sent, after what
 * earlier attempts sent: every request that carried it, the largest of them, ambiguous if any
 * attempt was.
 */
function sentOutcome(
  action: CampaignAction,
  delivery: CampaignDelivery,
  soFar: SentSoFar,
): ActionOutcome {
  return flagged(
    {
      status: 'sent',
      requestIds: requestIdsOf(soFar.requestIds, delivery.sent),
      message: delivery.sent[0]?.message ?? soFar.message,
      campaignId: action.content.campaignId,
      recipientCount: action.recipients.length,
      batchRecipientCount: Math.max(soFar.batchRecipientCount, delivery.batchRecipientCount),
    },
    soFar.ambiguous || delivery.ambiguousAttempts > 0,
  );
}
