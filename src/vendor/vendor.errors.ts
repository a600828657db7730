/**
 * One hierarchy for everything that can go wrong talking to the vendor, modelled on kafkajs'
 * errors: `retriable` tells the caller whether trying again can help, `cause` keeps the origin.
 * Messages never carry keys or recipient data.
 */
export class VendorError extends Error {
  override name = 'VendorError';
  constructor(
    message: string,
    readonly retriable: boolean,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
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

const RETRIABLE_STATUS = new Set([408, 425, 429]);

export function isRetriableStatus(status: number): boolean {
  return status >= 500 || RETRIABLE_STATUS.has(status);
}
