import type { ClassConstructor } from 'class-transformer';
import type { EventEnvelope } from './event-envelope';
import { USER_SIGNED_UP_V1, UserSignedUpV1 } from './user-signed-up.v1';

/** Every event type mailbridge accepts, mapped to the class that validates it. */
export const INBOUND_CONTRACTS: Readonly<Record<string, ClassConstructor<EventEnvelope>>> = {
  [USER_SIGNED_UP_V1]: UserSignedUpV1,
};

export type InboundEvent = UserSignedUpV1;
