import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsEmail,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { EventEnvelope } from './event-envelope';
import { IsStringMap } from './is-string-map';

export const EMAIL_CAMPAIGN_REQUESTED_V1 = 'email.campaign.requested.v1';

export class NamedAddressDto {
  @IsString() @MaxLength(200) name!: string;
  @IsEmail() @MaxLength(320) email!: string;
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
  @IsOptional() @IsString() @MaxLength(200) name?: string;
  @IsEmail() @MaxLength(320) email!: string;
  /** Free-form attribute names mapped to string values. */
  @IsOptional() @IsStringMap() attributes?: Record<string, string>;
}

export class CampaignRecipientsDto {
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(10_000)
  @ValidateNested({ each: true })
  @Type(() => CampaignRecipientDto)
  to!: CampaignRecipientDto[];
}

/** The vendor's campaign request (interface section 2.1), as a command. */
export class CampaignRequestDto {
  /** `List-Unsubscribe` and custom `X-` headers; the vendor client checks names and values. */
  @IsOptional() @IsStringMap() headers?: Record<string, string>;
  @IsString() @IsNotEmpty() @MaxLength(998) subject!: string;
  @IsString() @IsNotEmpty() body!: string;
  @IsOptional() @IsString() @MaxLength(500) preview?: string;
  @IsOptional() @IsString() @MaxLength(200) campaignId?: string;
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
