import { Type } from 'class-transformer';
import { IsIn, IsObject, ValidateNested } from 'class-validator';
import { EventEnvelope } from './event-envelope';
import { IsEmailAddress } from './is-email-address';

export const EMAIL_SUPPRESSION_REQUESTED_V1 = 'email.suppression.requested.v1';

/** `add` puts the address on the suppression list for `scope`; `remove` takes it off. */
export const SUPPRESSION_ACTIONS = ['add', 'remove'] as const;
export type SuppressionAction = (typeof SUPPRESSION_ACTIONS)[number];

/**
 * Why an address is suppressed. `erased` (a person's right to erasure) also removes the address
 * from everywhere else mailbridge keeps it, and always suppresses every category of mail.
 */
export const SUPPRESSION_REASONS = [
  'unsubscribed',
  'bounced',
  'complained',
  'erased',
  'manual',
] as const;
export type SuppressionReason = (typeof SUPPRESSION_REASONS)[number];

/**
 * Which mail the entry stops: `marketing` templates only, or `all` (transactional mail such as an
 * order confirmation too).
 */
export const SUPPRESSION_SCOPES = ['marketing', 'all'] as const;
export type SuppressionScope = (typeof SUPPRESSION_SCOPES)[number];

export class SuppressionRequestDto {
  @IsIn(SUPPRESSION_ACTIONS) action!: SuppressionAction;
  @IsEmailAddress() address!: string;
  @IsIn(SUPPRESSION_REASONS) reason!: SuppressionReason;
  @IsIn(SUPPRESSION_SCOPES) scope!: SuppressionScope;
}

/**
 * `email.suppression.requested.v1`: a service asks for an address to be added to or removed from
 * the suppression list. Adding and removing are idempotent: the same command twice is one entry.
 */
export class EmailSuppressionRequestedV1 extends EventEnvelope {
  declare type: typeof EMAIL_SUPPRESSION_REQUESTED_V1;

  @IsObject()
  @ValidateNested()
  @Type(() => SuppressionRequestDto)
  data!: SuppressionRequestDto;
}
