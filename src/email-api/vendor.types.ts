import type { VendorError } from './vendor.errors';

/**
 * The vendor's request and response bodies, field for field as its interface document gives them
 * (section 2). Every field is optional there unless marked required.
 */

export interface NamedAddress {
  name: string;
  email: string;
}

export interface CampaignRecipient {
  name?: string;
  email: string;
  /** Per-recipient values, merged into the subject and body by the vendor. */
  attributes?: Record<string, string>;
}

export interface CampaignRequest {
  headers?: {
    /** Replaces the vendor's default unsubscribe header; the target must accept POST. */
    'List-Unsubscribe'?: string;
    [customHeader: `X-${string}`]: string | undefined;
  };
  subject?: string;
  body?: string;
  preview?: string;
  campaignId?: string;
  sender?: { from?: NamedAddress; replyTo?: NamedAddress };
  recipients: { to: CampaignRecipient[] };
  disableTrackingLinks?: boolean;
}

export interface CampaignResponse {
  requestId: string;
  message: string;
}

/** Recipients (indexes into the request's `recipients.to`) that one vendor request carried. */
export interface CampaignChunkSent {
  ok: true;
  requestId: string;
  message: string;
  recipientIndexes: number[];
  /** HTTP attempts this request took, retries included. */
  attempts: number;
  /** Attempts before the accepted one that may have reached the vendor too (possible doubles). */
  ambiguousAttempts: number;
}

/**
 * Recipients whose send failed for good: after the retries ran out (`error.retriable` true: the
 * caller may try later), permanently (4xx, invalid 2xx body), or refused before sending
 * (`VendorRequestError`, `attempts` 0). A `VendorAuthError` means the keys are wrong.
 */
export interface CampaignChunkFailed {
  ok: false;
  error: VendorError;
  recipientIndexes: number[];
  attempts: number;
  /** Failed attempts that may have reached the vendor all the same. */
  ambiguousAttempts: number;
}

export type CampaignChunkResult = CampaignChunkSent | CampaignChunkFailed;

/**
 * The outcome of `sendCampaign`: every recipient index appears in exactly one entry, entries
 * ordered by their first index. A sent entry is exactly one vendor request (after splitting).
 */
export type CampaignSendResult = CampaignChunkResult[];

/** A contact's text fields, as the interface names them; the validator checks each of them. */
export const CONTACT_MEMBER_TEXT_FIELDS = [
  'firstName',
  'lastName',
  'source',
  'birthday',
  'currency',
  'country',
  'province',
  'city',
  'address1',
  'address2',
  'phone',
  'postalCode',
  'company',
  'lastPurchaseOrder',
  'lastPurchasePrice',
  'latestOrderId',
] as const;

/** One member of a contact list: the address, its tags, and any of the text fields above. */
export type ContactMember = { email: string; tags?: string[] } & {
  [field in (typeof CONTACT_MEMBER_TEXT_FIELDS)[number]]?: string;
};

export interface ContactListRequest {
  name: string;
  members?: ContactMember[];
}

export interface ContactListResponse {
  id: string;
}

/** A created list, and how many earlier attempts may have created it (or a twin) already. */
export interface ContactListCreated extends ContactListResponse {
  ambiguousAttempts: number;
}

/** Header names of the two endpoints' keys. */
export const RELAY_TOKEN_HEADER = 'x-relay-access-token';
export const API_KEY_HEADER = 'x-api-key';
