/**
 * What became of one action (a template's plan for one event): sent, created, or failed. The
 * delivery layer decides it, the idempotency store keeps it, and the outbound layer turns it into
 * a result event; so it lives here, below all three. Enough to publish the result again.
 */
export type ActionOutcome =
  | {
      status: 'sent';
      requestIds: string[];
      message: string;
      campaignId?: string;
      /** The locale of the template copy sent (absent for a command's campaign). */
      locale?: string;
      recipientCount: number;
      batchRecipientCount: number;
      /** Recipients left out as suppressed (never their addresses); absent for none. */
      suppressedCount?: number;
      /** An earlier attempt may have reached the vendor too (a possible second email). */
      ambiguous?: true;
    }
  | {
      status: 'created';
      listId: string;
      name: string;
      memberCount: number;
      /** Members left out as suppressed (never their addresses); absent for none. */
      suppressedCount?: number;
      ambiguous?: true;
    }
  | {
      status: 'failed';
      /**
       * A `DispatchFailureCode` (`email-dispatch-failed.v1.ts`). Kept a string: outcomes stored
       * before the codes existed hold an error class name (`VendorRequestError`, …), which the
       * result factory maps to a code.
       */
      errorCode: string;
      vendorStatus?: number;
      /** A `DispatchFailureReason` (`SUPPRESSED`), when there is a finer cause. */
      reasonCode?: string;
      suppressedCount?: number;
      message: string;
      ambiguous?: true;
    };

/**
 * What the idempotency store records for an action: its outcome, or, for an order whose member
 * waits in a contact-list window (`src/windows/window.store.ts`), that its outcome comes when
 * that list is created. Never published: only an `ActionOutcome` makes a result event, so a
 * redelivered order that finds `in-window` publishes nothing and its result comes with the list.
 */
export type RecordedOutcome = ActionOutcome | { status: 'in-window'; list: string };
