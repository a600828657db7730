import type { ClassConstructor } from 'class-transformer';
import {
  EMAIL_CAMPAIGN_REQUESTED_V1,
  EmailCampaignRequestedV1,
} from './email-campaign-requested.v1';
import {
  EMAIL_CONTACT_LIST_REQUESTED_V1,
  EmailContactListRequestedV1,
} from './email-contact-list-requested.v1';
import {
  EMAIL_SUPPRESSION_REQUESTED_V1,
  EmailSuppressionRequestedV1,
} from './email-suppression-requested.v1';
import type { EventEnvelope } from './event-envelope';
import { ORDER_PLACED_V1, OrderPlacedV1 } from './order-placed.v1';
import { USER_SIGNED_UP_V1, UserSignedUpV1 } from './user-signed-up.v1';

/** Every event type mailbridge accepts, mapped to the class that defines its contract. */
export const INBOUND_CONTRACTS: Readonly<Record<string, ClassConstructor<EventEnvelope>>> = {
  [USER_SIGNED_UP_V1]: UserSignedUpV1,
  [ORDER_PLACED_V1]: OrderPlacedV1,
  [EMAIL_CAMPAIGN_REQUESTED_V1]: EmailCampaignRequestedV1,
  [EMAIL_CONTACT_LIST_REQUESTED_V1]: EmailContactListRequestedV1,
  [EMAIL_SUPPRESSION_REQUESTED_V1]: EmailSuppressionRequestedV1,
};

/**
 * How mailbridge reads each inbound type's `data`. Domain events (`tolerant`) belong to the teams
 * that publish them for many consumers: a member their contract here does not declare, at any
 * depth, is ignored and removed before the event is used, so that a producer may add a field
 * before mailbridge knows it. Commands addressed to mailbridge (`strict`) refuse one
 * (`UNKNOWN_FIELD`): a misspelled option must not be silently dropped. The envelope is read the
 * same way for every type (CloudEvents extension attributes aside, unknown members refused).
 */
export const INBOUND_READERS: Readonly<Record<string, 'tolerant' | 'strict'>> = {
  [USER_SIGNED_UP_V1]: 'tolerant',
  [ORDER_PLACED_V1]: 'tolerant',
  [EMAIL_CAMPAIGN_REQUESTED_V1]: 'strict',
  [EMAIL_CONTACT_LIST_REQUESTED_V1]: 'strict',
  [EMAIL_SUPPRESSION_REQUESTED_V1]: 'strict',
};

export type InboundEvent =
  | UserSignedUpV1
  | OrderPlacedV1
  | EmailCampaignRequestedV1
  | EmailContactListRequestedV1
  | EmailSuppressionRequestedV1;
