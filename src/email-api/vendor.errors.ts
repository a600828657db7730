/**
 * One hierarchy for everything that can go wrong talking to the vendor, modelled on kafkajs'
 * errors: `retriable` tells the caller whether trying again can help, `cause` keeps the origin.
 * Messages and causes never carry keys or recipient data (causes are redacted copies).
 */
export interface VendorErrorOptions {
  cause?: unknown;
  /** What the vendor's `Retry-After` asked for, in milliseconds from when it answered. */
  retryAfterMs?: number;
  /** The request was written and its fate is unknown: the vendor may have acted on it. */
  ambiguous?: boolean;
}

export class VendorError extends Error {
  override name = 'VendorError';
  readonly retryAfterMs?: number;
  /**
   * The request was written and then the answer was lost (a timeout waiting for it, a reset):
   * the vendor may have accepted it, and it has no idempotency key, so sending again may send
   * twice. What to do about that is the caller's policy (`AMBIGUOUS_SEND_POLICY`).
   */
  readonly ambiguous: boolean;

  constructor(
    message: string,
    readonly retriable: boolean,
    readonly status?: number,
    options?: VendorErrorOptions,
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.retryAfterMs = options?.retryAfterMs;
    this.ambiguous = options?.ambiguous ?? false;
  }
}

/** 401/403: the key is missing, wrong or not allowed from this address: a configuration fault. */
export class VendorAuthError extends VendorError {
  override name = 'VendorAuthError';
  constructor(status: number, detail?: string) {
    super(
      `vendor refused the credentials (${status})${detail ? `: ${detail}` : ''}`,
      false,
      status,
    );
  }
}

/** The vendor answered 2xx with a body that is not what the interface promises. */
export class VendorResponseError extends VendorError {
  override name = 'VendorResponseError';
  constructor(message: string, status: number) {
    super(message, false, status);
  }
}

/** The request was refused before it left: it breaks the interface or a header is unsafe. */
export class VendorRequestError extends VendorError {
  override name = 'VendorRequestError';
  constructor(message: string) {
    super(message, false);
  }
}

/** No HTTP answer: refused or reset connection, DNS, TLS. `code` is the system or undici code. */
export class VendorNetworkError extends VendorError {
  override name = 'VendorNetworkError';
  constructor(
    message: string,
    readonly code: string | undefined,
    retriable: boolean,
    options?: VendorErrorOptions,
  ) {
    super(message, retriable, undefined, options);
  }
}

/** The connect, headers or body timeout ran out. The vendor may have acted on the request. */
export class VendorTimeoutError extends VendorNetworkError {
  override name = 'VendorTimeoutError';
}

/** The caller withheld these recipients just before their request was written (nothing sent). */
export class VendorWithheldError extends VendorError {
  override name = 'VendorWithheldError';
  constructor() {
    super('withheld by the caller before the request was written', false);
  }
}

/** The client's own configuration is unusable (insecure URL, malformed key); never retriable. */
export class VendorConfigError extends VendorError {
  override name = 'VendorConfigError';
  constructor(message: string) {
    super(message, false);
  }
}

const RETRIABLE_STATUS = new Set([408, 425, 429]);

export function isRetriableStatus(status: number): boolean {
  return status >= 500 || RETRIABLE_STATUS.has(status);
}

/**
 * The service is stopping: nothing was written, so the work goes back, uncommitted, to whoever
 * takes it next. Not a `VendorError`: it says nothing of the vendor, and never becomes an outcome.
 */
export class StoppingError extends Error {
  override readonly name = 'StoppingError';

  constructor() {
    super('the service is stopping: no more vendor requests');
  }
}
