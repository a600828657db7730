import { Inject, Injectable } from '@nestjs/common';
import type { ActionOutcome } from '../contracts/action-outcome';
import { VendorError } from '../email-api/vendor.errors';
import type { ContactMember } from '../email-api/vendor.types';
import { IDEMPOTENCY_STORE, type IdempotencyStore } from '../idempotency/idempotency.store';
import type { ActionTicket, ExactListAction } from './action-ticket';
import { ContactListBatcher, type CreatedList, type ListSend } from './contact-list.batcher';
import { ambiguousFailure, failedOutcome, flagged, VendorTrouble } from './vendor-trouble';
import { suppressedFailure } from './suppressed-failure';
import { SuppressionList } from '../suppression/suppression-list';

/**
 * Creates one contact list through the gate and back to its outcome: an exact-list command's
 * (`deliver`), or a window's when it closes (`create`, from `src/windows/`). Transient trouble
 * pauses and tries again; a permanent refusal is a `failed` outcome; a lost answer follows
 * `AMBIGUOUS_SEND_POLICY`.
 */
@Injectable()
export class ContactListDelivery {
  constructor(
    @Inject(ContactListBatcher) private readonly lists: ContactListBatcher,
    @Inject(IDEMPOTENCY_STORE) private readonly claims: IdempotencyStore,
    private readonly trouble: VendorTrouble,
    private readonly suppression: SuppressionList,
  ) {}

  /**
   * The exact list a command names, marked `sending` under its claim just before it is written,
   * without the members on the suppression list (checked in one round trip first); none left,
   * nothing is written and the action fails as suppressed.
   */
  async deliver(action: ExactListAction, ticket: ActionTicket): Promise<ActionOutcome> {
    const { claim } = ticket;
    const verdicts = await this.suppression.check(
      action.members.map((m) => m.email),
      ticket.category,
    );
    const members = action.members.filter((_, i) => !verdicts[i]);
    const left = action.members.length - members.length;
    if (left > 0 && members.length === 0) {
      return suppressedFailure(left, 'member', ticket.ambiguous);
    }
    const outcome = await this.create(action.name, members, {
      ambiguous: ticket.ambiguous,
      send: {
        markSending: async () => (await this.claims.markSending([claim])).has(claim.key),
        traces: [ticket.trace],
      },
    });
    return left > 0 && outcome.status === 'created'
      ? { ...outcome, suppressedCount: left }
      : outcome;
  }

  /** `ambiguous`: an earlier attempt may have created it already (taken over, policy `resend`). */
  async create(
    name: string,
    members: ContactMember[],
    how: { ambiguous: boolean; send: ListSend },
  ): Promise<ActionOutcome> {
    let ambiguous = how.ambiguous;
    for (;;) {
      await this.trouble.waitOpen();
      let created: CreatedList;
      try {
        created = await this.lists.createExact(name, members, how.send);
      } catch (error) {
        if (error instanceof VendorError && error.ambiguous) {
          this.trouble.countLostAnswers(1);
          if (this.trouble.failsAmbiguous) return ambiguousFailure(error.message);
          ambiguous = true;
        }
        const final = this.trouble.finalOrPaused(error);
        if (final) return failedOutcome(final, '', ambiguous);
        continue;
      }
      this.trouble.countLostAnswers(created.ambiguousAttempts);
      const { listId, memberCount } = created;
      return flagged(
        { status: 'created', listId, name: created.name, memberCount },
        ambiguous || created.ambiguousAttempts > 0,
      );
    }
  }
}
