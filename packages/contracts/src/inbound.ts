/**
 * The events mailbridge consumes, as plain TypeScript types. They mirror the service's contract
 * classes (`src/contracts/*.ts`, whose class-validator decorators are the one definition);
 * `src/contracts/client-agreement.spec.ts` fails to compile if the two drift apart. Every
 * optional field may also be sent as `null` (the JSON Schemas allow it).
 */

export const USER_SIGNED_UP_V1 = 'user.signed_up.v1';
export const ORDER_PLACED_V1 = 'order.placed.v1';
export const EMAIL_CAMPAIGN_REQUESTED_V1 = 'email.campaign.requested.v1';
export const EMAIL_CONTACT_LIST_REQUESTED_V1 = 'email.contact_list.requested.v1';
export const EMAIL_SUPPRESSION_REQUESTED_V1 = 'email.suppression.requested.v1';

/** Every event type mailbridge accepts. */
export const INBOUND_TYPES = [
  USER_SIGNED_UP_V1,
  ORDER_PLACED_V1,
  EMAIL_CAMPAIGN_REQUESTED_V1,
  EMAIL_CONTACT_LIST_REQUESTED_V1,
  EMAIL_SUPPRESSION_REQUESTED_V1,
] as const;

export type InboundType = (typeof INBOUND_TYPES)[number];

/**
 * The topic each type is published to by default (the service's `TOPIC_*` settings move them).
 * Each topic accepts its own type only: any other is dead-lettered `WRONG_TOPIC`.
 */
export const INBOUND_TOPICS: Readonly<Record<InboundType, string>> = {
  [USER_SIGNED_UP_V1]: 'user.signed_up.v1',
  [ORDER_PLACED_V1]: 'order.placed.v1',
  [EMAIL_CAMPAIGN_REQUESTED_V1]: 'email.campaign.requested.v1',
  [EMAIL_CONTACT_LIST_REQUESTED_V1]: 'email.contact_list.requested.v1',
  [EMAIL_SUPPRESSION_REQUESTED_V1]: 'email.suppression.requested.v1',
};

/** The attributes every inbound event carries: CloudEvents 1.0 context attributes. */
export interface EventEnvelope {
  /** Unique per event: the idempotency key, and every result's `sourceeventid`. */
  id: string;
  /** Versioned event type, e.g. `user.signed_up.v1`. */
  type: string;
  /** When the event happened (RFC 3339). */
  time: string;
  /** A URI-reference naming the producer (`/accounts`); required for CloudEvents. */
  source?: string;
  specversion?: string;
  datacontenttype?: string;
  dataschema?: string;
  subject?: string;
  /**
   * CloudEvents extension attributes (`tenant`, …), by name: 1–20 lower-case letters and digits,
   * each a boolean, an integer or plain text. {@link encodeEvent} writes them as attributes
   * (`ce_tenant` in binary mode); mailbridge checks them and keeps them beside the event, outside
   * any contract.
   */
  extensions?: Readonly<Record<string, string | number | boolean>>;
}

export interface UserSignedUpV1Data {
  userId: string;
  email: string;
  name: string;
  /**
   * BCP 47, e.g. `en-GB`. Lenient: mailbridge ignores a value that does not fit its schema
   * (at most 35 characters, plain text); the package's `SchemaValidator` refuses it, so a producer
   * that validates finds its mistake.
   */
  locale?: string;
  /** An IANA time zone, e.g. `Europe/Berlin` (at most 64 characters, plain text). Lenient, as `locale`. */
  timeZone?: string;
  /** One of `free`, `trial`, `pro`, `enterprise`. */
  plan?: string;
  /** Where the user signed up (web, ios, android, …). */
  signupSource?: string;
}

/** `user.signed_up.v1`: published by the accounts service when a user completes sign-up. */
export interface UserSignedUpV1 extends EventEnvelope {
  type: typeof USER_SIGNED_UP_V1;
  data: UserSignedUpV1Data;
}

export interface OrderAddress {
  address1?: string;
  address2?: string;
  city?: string;
  province?: string;
  postalCode?: string;
  country?: string;
}

export interface OrderCustomer {
  email: string;
  firstName: string;
  lastName?: string;
  phone?: string;
  company?: string;
  address?: OrderAddress;
  /** BCP 47, e.g. `de-DE`. Lenient, as {@link UserSignedUpV1Data.locale}. */
  locale?: string;
  /** An IANA time zone, e.g. `Europe/Berlin`. Lenient, as {@link UserSignedUpV1Data.locale}. */
  timeZone?: string;
}

export interface OrderItem {
  sku: string;
  name: string;
  /** 1 to 1,000,000. */
  quantity: number;
  /** A decimal string (`"17.50"`), never a float. */
  unitPrice: string;
}

export interface OrderPlacedV1Data {
  orderId: string;
  customer: OrderCustomer;
  /** A decimal string (`"35.00"`). */
  total: string;
  /** ISO 4217 (`EUR`). */
  currency: string;
  items: OrderItem[];
  /** ISO 8601, strict. */
  placedAt: string;
}

/** `order.placed.v1`: published by the shop when an order is placed. */
export interface OrderPlacedV1 extends EventEnvelope {
  type: typeof ORDER_PLACED_V1;
  data: OrderPlacedV1Data;
}

export interface NamedAddress {
  name: string;
  email: string;
}

export interface CampaignSender {
  from?: NamedAddress;
  replyTo?: NamedAddress;
}

export interface CampaignRecipient {
  name?: string;
  email: string;
  /** Merged into subject and body by the vendor (`{{KEY}}`). */
  attributes?: Record<string, string>;
}

export interface CampaignRecipients {
  /** 1 to 10,000 recipients, no address twice (ignoring case). */
  to: CampaignRecipient[];
}

/** The vendor's campaign request, as a command. */
export interface CampaignRequest {
  /** `List-Unsubscribe` and custom `X-` headers. */
  headers?: Record<string, string>;
  subject: string;
  /** HTML, at most 200,000 characters. */
  body: string;
  preview?: string;
  campaignId?: string;
  sender?: CampaignSender;
  recipients: CampaignRecipients;
  disableTrackingLinks?: boolean;
}

/** `email.campaign.requested.v1`: a service asks for a campaign send directly. */
export interface EmailCampaignRequestedV1 extends EventEnvelope {
  type: typeof EMAIL_CAMPAIGN_REQUESTED_V1;
  data: CampaignRequest;
}

/** A contact-list member: the vendor interface's member fields, all strings but `tags`. */
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

/** `email.contact_list.requested.v1`: a service asks for one named contact list to be created. */
export interface EmailContactListRequestedV1 extends EventEnvelope {
  type: typeof EMAIL_CONTACT_LIST_REQUESTED_V1;
  data: ContactListRequest;
}

export interface SuppressionRequest {
  /** `add` puts the address on the suppression list for `scope`; `remove` takes it off. */
  action: 'add' | 'remove';
  address: string;
  /** `erased` also removes the address from everywhere else mailbridge keeps it. */
  reason: 'unsubscribed' | 'bounced' | 'complained' | 'erased' | 'manual';
  /** `marketing` stops marketing templates only; `all` transactional mail too. */
  scope: 'marketing' | 'all';
}

/** `email.suppression.requested.v1`: an address added to or removed from the suppression list. */
export interface EmailSuppressionRequestedV1 extends EventEnvelope {
  type: typeof EMAIL_SUPPRESSION_REQUESTED_V1;
  data: SuppressionRequest;
}

/** Any event mailbridge accepts, discriminated by `type`. */
export type InboundEvent =
  | UserSignedUpV1
  | OrderPlacedV1
  | EmailCampaignRequestedV1
  | EmailContactListRequestedV1
  | EmailSuppressionRequestedV1;

export function isInboundType(type: string): type is InboundType {
  return (INBOUND_TYPES as readonly string[]).includes(type);
}
