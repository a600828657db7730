import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsEmail,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { EventEnvelope } from './event-envelope';

export const EMAIL_CONTACT_LIST_REQUESTED_V1 = 'email.contact_list.requested.v1';

/** A contact-list member: the interface's eighteen fields, all strings but `tags`. */
export class ContactMemberDto {
  @IsEmail() @MaxLength(320) email!: string;
  @IsOptional() @IsString() @MaxLength(100) firstName?: string;
  @IsOptional() @IsString() @MaxLength(100) lastName?: string;
  @IsOptional() @IsString() @MaxLength(100) source?: string;
  @IsOptional() @IsString() @MaxLength(30) birthday?: string;
  @IsOptional() @IsArray() @ArrayMaxSize(100) @IsString({ each: true }) tags?: string[];
  @IsOptional() @IsString() @MaxLength(10) currency?: string;
  @IsOptional() @IsString() @MaxLength(100) country?: string;
  @IsOptional() @IsString() @MaxLength(100) province?: string;
  @IsOptional() @IsString() @MaxLength(100) city?: string;
  @IsOptional() @IsString() @MaxLength(200) address1?: string;
  @IsOptional() @IsString() @MaxLength(200) address2?: string;
  @IsOptional() @IsString() @MaxLength(50) phone?: string;
  @IsOptional() @IsString() @MaxLength(20) postalCode?: string;
  @IsOptional() @IsString() @MaxLength(200) company?: string;
  @IsOptional() @IsString() @MaxLength(100) lastPurchaseOrder?: string;
  @IsOptional() @IsString() @MaxLength(30) lastPurchasePrice?: string;
  @IsOptional() @IsString() @MaxLength(100) latestOrderId?: string;
}

export class ContactListRequestDto {
  @IsString() @IsNotEmpty() @MaxLength(200) name!: string;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(10_000)
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
