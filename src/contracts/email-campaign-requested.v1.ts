import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { EventEnvelope } from './event-envelope';
import { HasUniqueEmails, IsEmailAddress } from './is-email-address';
import { IsPlainText } from './is-plain-text';
import { IsStringMap } from './is-string-map';

/**
 * The longest body accepted, in characters (Unicode code points, as JSON Schema counts them). The vendor documents no limit; Gmail clips a
 * message beyond 102 KB, so twice that is room for any real campaign while a body of megabytes
 * (which would also crowd out the recipients under MAX_EVENT_BYTES) is refused at the edge.
 */
export const MAX_BODY_LENGTH = 200_000;

export const EMAIL_CAMPAIGN_REQUESTED_V1 = 'email.campaign.requested.v1';

export class NamedAddressDto {
  @IsString() @MaxLength(200) @IsPlainText() name!: string;
  @IsEmailAddress() email!: string;
}

export class CampaignSenderDto {
  @IsOptional() @IsObject() @ValidateNested() @Type(() => NamedAddressDto) from?: NamedAddressDto;
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => NamedAddressDto)
  replyTo?: NamedAddressDto;
}

export class CampaignRecipientDto {
  @IsOptional() @IsString() @MaxLength(200) @IsPlainText() name?: string;
  @IsEmailAddress() email!: string;
  /** Free-form attribute names mapped to string values. */
  @IsOptional()
  @IsStringMap({ maxEntries: 100, maxKeyLength: 100, maxValueLength: 1000 })
  attributes?: Record<string, string>;
}

export class CampaignRecipientsDto {
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(10_000)
  @HasUniqueEmails()
  @ValidateNested({ each: true })
  @Type(() => CampaignRecipientDto)
  to!: CampaignRecipientDto[];
}

/** The vendor's campaign request (interface section 2.1), as a command. */
export class CampaignRequestDto {
  /** `List-Unsubscribe` and custom `X-` headers; the vendor client checks names and values. */
  /** 998: the longest line RFC 5322 allows in a message. */
  @IsOptional()
  @IsStringMap({ maxEntries: 20, maxKeyLength: 100, maxValueLength: 998 })
  headers?: Record<string, string>;
  @IsString() @IsNotEmpty() @MaxLength(998) @IsPlainText() subject!: string;
  /** HTML: line breaks and tabs are allowed here, control characters are not. */
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_BODY_LENGTH)
  @IsPlainText({ multiline: true })
  body!: string;
  @IsOptional() @IsString() @MaxLength(500) @IsPlainText() preview?: string;
  @IsOptional() @IsString() @MaxLength(200) @IsPlainText() campaignId?: string;
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => CampaignSenderDto)
  sender?: CampaignSenderDto;
  @IsObject()
  @ValidateNested()
  @Type(() => CampaignRecipientsDto)
  recipients!: CampaignRecipientsDto;
  @IsOptional() @IsBoolean() disableTrackingLinks?: boolean;
}

/**
 * `email.campaign.requested.v1`: a service asks for a campaign send directly. Requests with the
 * same content are merged into one vendor request; each event's recipients stay together.
 */
export class EmailCampaignRequestedV1 extends EventEnvelope {
  declare type: typeof EMAIL_CAMPAIGN_REQUESTED_V1;

  @IsObject()
  @ValidateNested()
  @Type(() => CampaignRequestDto)
  data!: CampaignRequestDto;
}
