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

export interface ContactMember {
  email: string;
  firstName?: string;
  lastName?: string;
  source?: string;
  birthday?: string;
  tags?: string[];
  currency?: string;
  country?: string;
  province?: string;
  city?: string;
  address1?: string;
  address2?: string;
  phone?: string;
  postalCode?: string;
  company?: string;
  lastPurchaseOrder?: string;
  lastPurchasePrice?: string;
  latestOrderId?: string;
}

export interface ContactListRequest {
  name: string;
  members?: ContactMember[];
}

export interface ContactListResponse {
  id: string;
}

/** Header names of the two endpoints' keys. */
export const RELAY_TOKEN_HEADER = 'x-relay-access-token';
export const API_KEY_HEADER = 'x-api-key';
