import { IsIn, IsString } from 'class-validator';
import { SUPPRESSION_SCOPES, type SuppressionScope } from './email-suppression-requested.v1';
import { IsRfc3339 } from './is-rfc3339';
import type { ResultEvent } from './result-event';
import { TEMPLATE_CATEGORIES, type TemplateCategory } from './template-category';

export const EMAIL_UNSUBSCRIBED_V1 = 'email.unsubscribed.v1';

/**
 * The `data` of `email.unsubscribed.v1`; its decorators are its published JSON Schema. Unlike
 * the other results it answers no inbound event: a reader followed a one-click link.
 */
export class EmailUnsubscribedV1Data {
  /** The unsubscribe's own id, the same in every copy of this event (deduplicate on it). */
  @IsString()
  unsubscribeId!: string;

  /** The address that unsubscribed, as the email was sent to it. */
  @IsString()
  address!: string;

  /** The category of the email whose link was followed. */
  @IsIn(TEMPLATE_CATEGORIES)
  category!: TemplateCategory;

  /** The mail it stops from now on: `marketing` only, or `all` mail. */
  @IsIn(SUPPRESSION_SCOPES)
  scope!: SuppressionScope;

  /** When mailbridge stored the unsubscribe (RFC 3339, UTC). */
  @IsRfc3339()
  unsubscribedAt!: string;
}

/**
 * `email.unsubscribed.v1`: an address unsubscribed through a one-click link; its `sourceeventid`
 * is the `unsubscribeId`, as no inbound event precedes it.
 */
export type EmailUnsubscribedV1 = ResultEvent<
  typeof EMAIL_UNSUBSCRIBED_V1,
  EmailUnsubscribedV1Data
>;
