import { DiscoveryService } from '@nestjs/core';
import type { InboundEvent } from '../contracts/inbound-contracts';
import type { TemplateCategory } from '../contracts/template-category';
import type { CampaignRecipient, CampaignRequest, ContactMember } from '../email-api/vendor.types';
import type { LocaleFallback } from './locale.fallback';

/** Everything of a campaign request but its recipients: shared by every event of a batch. */
export type CampaignContent = Omit<CampaignRequest, 'recipients'>;

/**
 * One or more recipients for a campaign whose content is shared by all events with `batchKey`:
 * actions of one batch key must carry the same content, so a template's key names its locale.
 */
export interface CampaignAction {
  kind: 'campaign';
  batchKey: string;
  content: CampaignContent;
  recipients: CampaignRecipient[];
  /** The locale of a template's copy in `content` (a command's campaign has none). */
  locale?: string;
  /** Present when the event asked for a locale that has no copy, and why: counted, not sent. */
  localeFallback?: LocaleFallback;
  /** Present when the event named a time zone not known here, so dates show in the default's. */
  timeZoneFallback?: true;
}

/**
 * Members for a contact list. `window` actions gather the members of every event whose time
 * falls in the same window into one list named after the window; `exact` actions create the
 * one list they name, on their own.
 */
export type ContactListAction =
  | {
      kind: 'contact-list';
      mode: 'window';
      /** Which family of lists (one per window) the members go to. */
      listKey: string;
      window: { start: Date; end: Date };
      /** One event, one member: the window keeps it until its list is created. */
      members: [ContactMember];
    }
  | { kind: 'contact-list'; mode: 'exact'; name: string; members: ContactMember[] };

export type TemplateAction = CampaignAction | ContactListAction;

/**
 * The code of a template: a pure mapper from one event type to one vendor action. No I/O, no
 * clock, no randomness — the same event always plans the same action, which is what makes
 * redelivery safe. (A template is a folder of `templates/`: its planner, the module providing
 * it, and the `.eta` files the planner renders; "template" alone never means the class.)
 * Register one by decorating a provider with `@Planner()` in its template's module; the
 * pipeline discovers it.
 */
export interface Planner<E extends InboundEvent = InboundEvent> {
  /** Stable name: part of idempotency keys and result ids; change it and events resend. */
  readonly name: string;
  readonly eventType: E['type'];
  /**
   * Which suppressions stop it: `transactional` only those of scope `all`, `marketing` any.
   * Every template declares one; docs/architecture.md says why each shipped one has its own.
   */
  readonly category: TemplateCategory;
  plan(event: E): TemplateAction;
}

/** Marks a provider as a planner for `PlannerRegistry` to find (the value to the type above). */
export const Planner = DiscoveryService.createDecorator();
