import { Type } from 'class-transformer';
import {
  IsIn,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { EventEnvelope } from './event-envelope';
import { IsEmailAddress } from './is-email-address';
import { IsPlainText } from './is-plain-text';
import { ReaderLocale, ReaderTimeZone } from './reader-preferences';

export const USER_SIGNED_UP_V1 = 'user.signed_up.v1';

/** What a sign-up tells us about the new user. */
export class UserSignedUpV1Data {
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  @IsPlainText()
  userId!: string;

  @IsEmailAddress()
  email!: string;

  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  @IsPlainText()
  name!: string;

  /**
   * The user's language as a BCP 47 tag (`de-DE`). Lenient: a value that does not fit is
   * ignored; a well-formed tag nobody knows falls back to the default copy in the templates.
   */
  @ReaderLocale()
  locale?: string;

  /** The user's IANA time zone (`Europe/Berlin`). Lenient, as `locale`. */
  @ReaderTimeZone()
  timeZone?: string;

  @IsOptional()
  @IsIn(['free', 'trial', 'pro', 'enterprise'])
  plan?: string;

  /** Where the user signed up (web, ios, android, …). */
  @IsOptional()
  @IsString()
  @MaxLength(50)
  @IsPlainText()
  signupSource?: string;
}

/**
 * `user.signed_up.v1`: published by the accounts service when a user completes sign-up.
 * @example { "id": "evt-1", "type": "user.signed_up.v1", "time": "2026-11-21T10:00:00Z",
 *            "data": { "userId": "u-1", "email": "ada@example.com", "name": "Ada Lovelace", "plan": "trial" } }
 */
export class UserSignedUpV1 extends EventEnvelope {
  declare type: typeof USER_SIGNED_UP_V1;

  @IsObject()
  @ValidateNested()
  @Type(() => UserSignedUpV1Data)
  data!: UserSignedUpV1Data;
}
