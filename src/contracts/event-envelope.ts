import { IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { IsPlainText } from './is-plain-text';
import { IsRfc3339 } from './is-rfc3339';

/**
 * The fields every inbound event carries, whatever its type: a plain JSON envelope or the same
 * attributes as a CloudEvents 1.0 event (`specversion`, `source` are then present). The
 * CloudEvents rules for these attributes are checked before this class sees them
 * (`inbound/cloud-event.ts`); extension attributes are checked there and kept in `extensions`.
 */
export class EventEnvelope {
  /** Unique per event, compared as received; the idempotency key and every result's correlation id. */
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  @IsPlainText()
  id!: string;

  /** Versioned event type, e.g. `user.signed_up.v1`. */
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  @IsPlainText()
  type!: string;

  /** When the event happened (RFC 3339). */
  @IsRfc3339()
  time!: string;

  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(1000)
  @IsPlainText()
  source?: string;

  @IsOptional()
  @IsString()
  @MaxLength(10)
  specversion?: string;

  @IsOptional()
  @IsString()
  @MaxLength(200)
  @IsPlainText()
  datacontenttype?: string;

  @IsOptional()
  @IsString()
  @MaxLength(2000)
  @IsPlainText()
  dataschema?: string;

  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(1000)
  @IsPlainText()
  subject?: string;

  /**
   * A CloudEvent's extension attributes (`ce_tenant`, or `"tenant"` beside `id` in structured
   * mode), by name, as received: checked against CloudEvents 1.0 (name of 1–20 lower-case
   * letters and digits; a boolean, an integer or plain text up to 1,000 characters), not part of
   * any contract. Set by the parser after validation, so no producer can send this field itself;
   * absent when the event has none.
   */
  extensions?: Readonly<Record<string, string | number | boolean>>;
}
