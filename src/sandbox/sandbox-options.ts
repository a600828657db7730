/** One status answered to a share of requests, e.g. `{ status: 429, share: 0.1, retryAfterSeconds: 1 }`. */
export interface StatusFault {
  status: number;
  /** In [0, 1]: the share of requests answered with this status. */
  share: number;
  /** Sent as `Retry-After` when given. */
  retryAfterSeconds?: number;
  /** `seconds` (default) or `http-date`, the two forms of RFC 9110. */
  retryAfterForm?: 'seconds' | 'http-date';
}

/**
 * What can go wrong at the stand-in, on purpose. All optional; `{}` is a healthy vendor. The
 * shares of hung requests, resets and statuses are drawn from one random number, so together they
 * must not exceed 1.
 */
export interface FaultConfig {
  /** Added before every answer. */
  latencyMs?: number;
  /** Plus a uniform random delay in [0, latencyJitterMs). */
  latencyJitterMs?: number;
  statuses?: StatusFault[];
  /** Share of requests never answered (the client's timeout must end them). */
  hangShare?: number;
  /** Share of requests whose connection is reset (TCP RST) after the body was read. */
  resetShare?: number;
  /** Campaigns with more recipients than this are answered 413. */
  maxRecipients?: number;
  /** Bodies larger than this are answered 413. */
  maxBodyBytes?: number;
  /** At most `requests` per `windowMs` (fixed window); the rest get 429 with `Retry-After`. */
  rateLimit?: { requests: number; windowMs: number };
}

export interface SandboxOptions {
  /** The key the campaign endpoint expects in X-RELAY-ACCESS-TOKEN (bare or as `TOKEN <key>`). */
  relayAccessToken: string;
  /** The key the contacts endpoint expects in X-API-KEY. */
  apiKey: string;
  faults?: FaultConfig;
  /**
   * Whether attribute values are HTML-escaped as they are merged into a body (default `true`),
   * as `VENDOR_MERGE_ESCAPES_HTML` says the vendor does: the inbox shows what the service's
   * templates would look like at such a vendor.
   */
  mergeEscapesHtml?: boolean;
  /**
   * How many requests are kept in full (headers and bodies); counters are always kept. A
   * benchmark sets 0 so that the stand-in costs little per request. Default 10 000.
   */
  recordLimit?: number;
  /** Seeded in tests for repeatable fault draws. */
  random?: () => number;
  now?: () => number;
}

export interface RecordedRequest {
  /** Position since the last reset, from 1; the inbox page links by it. */
  seq: number;
  at: string;
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body; absent for requests a fault answered before they were read. */
  body: unknown;
  /** 0 when there was no HTTP answer (hung or reset). */
  status: number;
  response: unknown;
  /** `hang`, `reset`, `status`, `rate-limit` or `too-large` when a fault decided the answer. */
  fault?: string;
}

export interface SandboxStats {
  /** Requests answered, or recorded as hung or reset, since the last reset. */
  received: number;
  /** Requests read in full whose answer `latencyMs` is still holding back, by path. */
  held: Record<string, number>;
  recorded: number;
  byStatus: Record<string, number>;
  byFault: Record<string, number>;
  campaignsAccepted: number;
  recipientsAccepted: number;
  contactListsAccepted: number;
  membersAccepted: number;
}

/** The interface document's paths under the default base URLs (`…/relay/v1`, `…/v1`). */
export const RELAY_PATH = '/relay/v1/email/campaign';
/** `/contacts` per the interface document, `/audiences` per the vendor's current docs. */
export const CONTACTS_PATHS: ReadonlySet<string> = new Set(['/v1/contacts', '/v1/audiences']);
