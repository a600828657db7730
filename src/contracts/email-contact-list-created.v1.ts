import { Equals, IsInt, IsOptional, IsString, Min } from 'class-validator';
import type { ResultEvent } from './result-event';

export const EMAIL_CONTACT_LIST_CREATED_V1 = 'email.contact_list.created.v1';

/** The `data` of `email.contact_list.created.v1`; its decorators are its published JSON Schema. */
export class EmailContactListCreatedV1Data {
  @IsString()
  sourceEventId!: string;

  @IsString()
  sourceEventType!: string;

  @IsString()
  template!: string;

  /** The vendor's id of the new list (a UUID). */
  @IsString()
  listId!: string;

  @IsString()
  name!: string;

  /** How many members the list was created with. */
  @IsInt()
  @Min(0)
  memberCount!: number;

  /**
   * How many members were left out of the list because they are on the suppression list (no
   * address is ever named). Absent when none was.
   */
  @IsOptional()
  @IsInt()
  @Min(1)
  suppressedCount?: number;

  /**
   * Present (true) when an earlier attempt of this send may have reached the vendor too: a
   * crash after the request was written, or an answer lost to a timeout or reset.
   */
  @IsOptional()
  @Equals(true)
  ambiguous?: true;
}

/** `email.contact_list.created.v1`: the list holding the source event's member(s) exists. */
export type EmailContactListCreatedV1 = ResultEvent<
  typeof EMAIL_CONTACT_LIST_CREATED_V1,
  EmailContactListCreatedV1Data
>;
