import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
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

export const EMAIL_CONTACT_LIST_REQUESTED_V1 = 'email.contact_list.requested.v1';

/** A contact-list member: the interface's eighteen fields, all strings but `tags`. */
export class ContactMemberDto {
  @IsEmailAddress() email!: string;
  @IsOptional() @IsString() @MaxLength(100) @IsPlainText() firstName?: string;
  @IsOptional() @IsString() @MaxLength(100) @IsPlainText() lastName?: string;
  @IsOptional() @IsString() @MaxLength(100) @IsPlainText() source?: string;
  @IsOptional() @IsString() @MaxLength(30) @IsPlainText() birthday?: string;
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @MaxLength(100, { each: true })
  @IsPlainText({}, { each: true })
  tags?: string[];
  @IsOptional() @IsString() @MaxLength(10) @IsPlainText() currency?: string;
  @IsOptional() @IsString() @MaxLength(100) @IsPlainText() country?: string;
  @IsOptional() @IsString() @MaxLength(100) @IsPlainText() province?: string;
  @IsOptional() @IsString() @MaxLength(100) @IsPlainText() city?: string;
  @IsOptional() @IsString() @MaxLength(200) @IsPlainText() address1?: string;
  @IsOptional() @IsString() @MaxLength(200) @IsPlainText() address2?: string;
  @IsOptional() @IsString() @MaxLength(50) @IsPlainText() phone?: string;
  @IsOptional() @IsString() @MaxLength(20) @IsPlainText() postalCode?: string;
  @IsOptional() @IsString() @MaxLength(200) @IsPlainText() company?: string;
  @IsOptional() @IsString() @MaxLength(100) @IsPlainText() lastPurchaseOrder?: string;
  @IsOptional() @IsString() @MaxLength(30) @IsPlainText() lastPurchasePrice?: string;
  @IsOptional() @IsString() @MaxLength(100) @IsPlainText() latestOrderId?: string;
}

export class ContactListRequestDto {
  @IsString() @IsNotEmpty() @MaxLength(200) @IsPlainText() name!: string;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(10_000)
  @HasUniqueEmails()
  @ValidateNested({ each: true })
  @Type(() => ContactMemberDto)
  members?: ContactMemberDto[];
}

/** `email.contact_list.requested.v1`: a service asks for one named contact list to be created. */
export class EmailContactListRequestedV1 extends EventEnvelope {
  declare type: typeof EMAIL_CONTACT_LIST_REQUESTED_V1;

  @IsObject()
  @ValidateNested()
  @Type(() => ContactListRequestDto)
  data!: ContactListRequestDto;
}
