import { IsISO8601, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';

/**
 * The fields every inbound event carries, whatever its type: a plain JSON envelope or the same
 * attributes as a CloudEvents 1.0 structured event (`specversion`, `source` are then present).
 */
export class EventEnvelope {
  /** Unique per event; the idempotency key and the correlation id of every result. */
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  id!: string;

  /** Versioned event type, e.g. `user.signed_up.v1`. */
  @IsString()
  @IsNotEmpty()
  type!: string;

  /** When the event happened (RFC 3339). */
  @IsISO8601({ strict: true })
  time!: string;

  @IsOptional()
  @IsString()
  source?: string;

  @IsOptional()
  @IsString()
  specversion?: string;
}
