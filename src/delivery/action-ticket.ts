import type { Context } from '@opentelemetry/api';
import type { TemplateCategory } from '../contracts/template-category';
import type { HeldClaim } from '../idempotency/idempotency.store';
import type { CampaignAction, ContactListAction } from '../templates/planner';

/** A contact-list action that creates exactly the list it names. */
export type ExactListAction = Extract<ContactListAction, { mode: 'exact' }>;

/** What goes to the vendor from `src/delivery/`: a campaign, or an exact contact list. */
export type DeliveredAction = CampaignAction | ExactListAction;

/** A claimed action on its way to the vendor. */
export interface ActionTicket {
  claim: HeldClaim;
  /** The template's category: which suppressions stop the action's recipients or members. */
  category: TemplateCategory;
  /** An earlier attempt may already have reached the vendor (taken over, policy `resend`). */
  ambiguous: boolean;
  /** The event's trace: the vendor request that carries the action links to it. */
  trace?: Context;
}
