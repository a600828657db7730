import { Equals, IsBoolean, IsIn, IsInt, IsOptional, IsString, Min } from 'class-validator';
import type { ResultEvent } from './result-event';

export const EMAIL_DISPATCH_FAILED_V1 = 'email.dispatch.failed.v1';

/**
 * The `errorCode`s of `email.dispatch.failed.v1`, each with the `retriable` it is published with:
 * whether redriving the source event later can succeed. Codes are part of the contract: a new
 * one is an addition here and in docs/events.md, an existing one never changes its name or meaning.
 * Vendor trouble that the service waits out (401/403, 408/425/429, 5xx, network failures it
 * retries) never ends in a failed result, so it has no code.
 */
export const DISPATCH_FAILURE_RETRIABLE = {
  /** Our own pre-send check refused the request (it breaks the vendor's interface). */
  INVALID_REQUEST: false,
  /** The vendor refused the request with a 4xx other than 401/403/408/425/429. */
  VENDOR_REJECTED: false,
  /** The vendor answered 2xx with a body the interface does not allow: it has likely acted. */
  VENDOR_BAD_RESPONSE: false,
  /** No usable answer that retrying now would change: TLS or certificate failure, a redirect. */
  VENDOR_UNAVAILABLE: true,
  /** AMBIGUOUS_SEND_POLICY=fail: the vendor may or may not have the send. */
  AMBIGUOUS_SEND: true,
  /** A failure inside mailbridge's vendor client, not a verdict on the request. */
  INTERNAL_ERROR: true,
} as const satisfies Record<string, boolean>;

export type DispatchFailureCode = keyof typeof DISPATCH_FAILURE_RETRIABLE;

/**
 * The `reasonCode`s of `email.dispatch.failed.v1`: a finer cause under an `errorCode`, added
 * within v1. A new `errorCode` would break v1 (its published schema lists the codes, so a
 * subscriber that validates against it would refuse one it does not know); a reason is an
 * optional string beside a code every subscriber knows. Like the codes, a reason never changes
 * name or meaning.
 */
export const DISPATCH_FAILURE_REASONS = {
  /**
   * Every recipient (or member) is on the suppression list for this template's category: nothing
   * was sent. Published with `errorCode` `INVALID_REQUEST` (a pre-send check refused the
   * recipients), not retriable: redriving sends nothing while the address stays suppressed.
   */
  SUPPRESSED: 'INVALID_REQUEST',
} as const satisfies Record<string, DispatchFailureCode>;

export type DispatchFailureReason = keyof typeof DISPATCH_FAILURE_REASONS;

export const DISPATCH_FAILURE_CODES = Object.keys(
  DISPATCH_FAILURE_RETRIABLE,
) as readonly DispatchFailureCode[];

export function isDispatchFailureCode(value: string): value is DispatchFailureCode {
  return Object.hasOwn(DISPATCH_FAILURE_RETRIABLE, value);
}

/** The `data` of `email.dispatch.failed.v1`; its decorators are its published JSON Schema. */
export class EmailDispatchFailedV1Data {
  @IsString()
  sourceEventId!: string;

  @IsString()
  sourceEventType!: string;

  @IsString()
  template!: string;

  /** One of `DISPATCH_FAILURE_CODES`; stable across releases (docs/events.md lists them). */
  @IsIn(DISPATCH_FAILURE_CODES)
  errorCode!: DispatchFailureCode;

  /**
   * A finer cause, one of `DISPATCH_FAILURE_REASONS` (`SUPPRESSED`); absent when the code says
   * all there is. A string in the schema, so that a later reason stays a compatible change.
   */
  @IsOptional()
  @IsString()
  reasonCode?: string;

  /** With `reasonCode` `SUPPRESSED`: how many recipients (or members) are suppressed. */
  @IsOptional()
  @IsInt()
  @Min(1)
  suppressedCount?: number;

  /** The vendor's HTTP status, when the vendor answered. */
  @IsOptional()
  @IsInt()
  vendorStatus?: number;

  /** `DISPATCH_FAILURE_RETRIABLE[errorCode]`: whether redriving the event later can succeed. */
  @IsBoolean()
  retriable!: boolean;

  /** Never holds personal data or keys. */
  @IsString()
  message!: string;

  /**
   * Present (true) with `errorCode` `AMBIGUOUS_SEND` (AMBIGUOUS_SEND_POLICY=fail): the vendor
   * may or may not have the send; it was not sent again. Redrive it if it did not arrive.
   * Also present with another code when an earlier attempt of the send may have reached it.
   */
  @IsOptional()
  @Equals(true)
  ambiguous?: true;
}

/**
 * `email.dispatch.failed.v1`: the source event could not be turned into a vendor call that
 * succeeded.
 */
export type EmailDispatchFailedV1 = ResultEvent<
  typeof EMAIL_DISPATCH_FAILED_V1,
  EmailDispatchFailedV1Data
>;
