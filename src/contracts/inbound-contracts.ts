import type { ClassConstructor } from 'class-transformer';
import {
  EMAIL_CAMPAIGN_REQUESTED_V1,
  EmailCampaignRequestedV1,
} from './email-campaign-requested.v1';
import {
  EMAIL_CONTACT_LIST_REQUESTED_V1,
  EmailContactListRequestedV1,
} from './email-contact-list-requested.v1';
import type { EventEnvelope } from './event-envelope';
import { ORDER_PLACED_V1, OrderPlacedV1 } from './order-placed.v1';
import { USER_SIGNED_UP_V1, UserSignedUpV1 } from './user-signed-up.v1';

/** Every event type mailbridge accepts, mapped to the class that defines its contract. */
export const INBOUND_CONTRACTS: Readonly<Record<string, ClassConstructor<EventEnvelope>>> = {
  [USER_SIGNED_UP_V1]: UserSignedUpV1,
  [ORDER_PLACED_V1]: OrderPlacedV1,
  [EMAIL_CAMPAIGN_REQUESTED_V1]: EmailCampaignRequestedV1,
  [EMAIL_CONTACT_LIST_REQUESTED_V1]: EmailContactListRequestedV1,
};

export type InboundEvent =
  UserSignedUpV1 | OrderPlacedV1 | EmailCampaignRequestedV1 | EmailContactListRequestedV1;
