import { Pool, type Dispatcher } from 'undici';
import { parseRetryAfter } from './retry.policy';
import type { SecretRedactor } from './secret.redactor';
import { isRecord } from './is-record';
import {
  VendorAuthError,
  VendorError,
  VendorNetworkError,
  VendorResponseError,
  VendorTimeoutError,
  isRetriableStatus,
} from './vendor.errors';

export interface TransportOptions {
  connections: number;
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  /** Replaces the pools (tests pass undici's MockAgent); the transport does not close it. */
  dispatcher?: Dispatcher;
  now: () => number;
  redactor: SecretRedactor;
}

export interface VendorEndpoint {
  /** Used in messages: "campaign send", "contact creation". */
  label: string;
  origin: string;
  path: string;
  auth: Record<string, string>;
}

export interface VendorReply {
  status: number;
  body: unknown;
}

/** Error bodies and success bodies alike are small; anything bigger is not the vendor talking. */
const MAX_RESPONSE_BYTES = 1024 * 1024;
const TIMEOUT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
]);
/**
 * Failures after the request was written: the vendor may have it. A connect timeout or a refused
 * connection never wrote anything, so they are not here.
 */
const AMBIGUOUS_CODES = new Set([
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_SOCKET',
  'ECONNRESET',
  'EPIPE',
  // Our own pools aborting requests under way when a stop outlasts its grace.
  'UND_ERR_DESTROYED',
  'UND_ERR_ABORTED',
]);
/** Our own misuse or a certificate problem: trying again cannot help. */
const PERMANENT_CODES = new Set([
  'UND_ERR_INVALID_ARG',
  'UND_ERR_NOT_SUPPORTED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
]);

/**
 * One HTTP attempt against the vendor, nothing more: no retries here (they live in
 * `RetryPolicy`). Keeps one keep-alive pool per origin; undici never follows redirects unless
 * asked, and a 3xx is reported as a permanent error, so a key is never replayed elsewhere.
 */
export class VendorTransport {
  private readonly pools = new Map<string, Pool>();

  constructor(private readonly options: TransportOptions) {}

  endpoint(label: string, baseUrl: string, suffix: string, auth: Record<string, string>) {
    const url = new URL(baseUrl);
    const path = `${url.pathname.replace(/\/+$/, '')}${suffix}`;
    if (!this.options.dispatcher && !this.pools.has(url.origin)) {
      this.pools.set(
        url.origin,
        new Pool(url.origin, {
          connections: this.options.connections,
          connectTimeout: this.options.connectTimeoutMs,
          headersTimeout: this.options.headersTimeoutMs,
          bodyTimeout: this.options.bodyTimeoutMs,
        }),
      );
    }
    return { label, origin: url.origin, path, auth } satisfies VendorEndpoint;
  }

  /**
   * Resolves with a 2xx answer's parsed JSON; anything else rejects with a `VendorError`.
   * `signal` aborts the request (at the stop's deadline): written and unanswered, it is ambiguous.
   */
  async post(
    endpoint: VendorEndpoint,
    body: string | Buffer,
    signal?: AbortSignal,
  ): Promise<VendorReply> {
    const dispatcher = this.options.dispatcher ?? this.pools.get(endpoint.origin)!;
    let response: Dispatcher.ResponseData;
    try {
      response = await dispatcher.request({
        origin: endpoint.origin,
        path: endpoint.path,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          ...endpoint.auth,
        },
        body,
        signal,
      });
    } catch (error) {
      if (signal?.aborted) throw abortedAtStop(endpoint.label);
      throw this.networkError(endpoint.label, error);
    }
    const { statusCode: status, headers } = response;
    const success = status >= 200 && status < 300;
    let text = '';
    try {
      text = await readCapped(response.body);
    } catch {
      if (signal?.aborted) throw abortedAtStop(endpoint.label);
      // After a 2xx the vendor has acted: a retry could send twice, so this is not retriable.
      if (success) {
        throw new VendorResponseError(
          `${endpoint.label}: ${status} body could not be read`,
          status,
        );
      }
    }
    if (success) return { status, body: parseJson(endpoint.label, status, text) };
    throw this.statusError(endpoint.label, status, text, headers['retry-after']);
  }

  /**
   * Lets requests under way finish for `graceMs`, then aborts them: a vendor that hangs must not
   * hold a stop beyond its bound (an aborted send stays unrecorded and is redelivered).
   */
  async close(graceMs = 1_000): Promise<void> {
    await Promise.all(
      [...this.pools.values()].map(async (pool) => {
        const abort = setTimeout(() => void pool.destroy().catch(() => undefined), graceMs);
        await pool.close().catch(() => undefined); // a destroyed pool's close rejects: done either way
        clearTimeout(abort);
      }),
    );
  }

  private statusError(
    label: string,
    status: number,
    text: string,
    retryAfter: string | string[] | undefined,
  ): VendorError {
    const detail = this.vendorMessage(text);
    if (status === 401 || status === 403) return new VendorAuthError(status, detail);
    if (status >= 300 && status < 400) {
      return new VendorError(
        `${label}: vendor answered ${status}; redirects are refused`,
        false,
        status,
      );
    }
    return new VendorError(
      `${label}: vendor answered ${status}${detail ? `: ${detail}` : ''}`,
      isRetriableStatus(status),
      status,
      { retryAfterMs: parseRetryAfter(retryAfter, this.options.now()) },
    );
  }

  private networkError(label: string, error: unknown): VendorNetworkError {
    const cause = this.options.redactor.copyError(error);
    const code = (cause as { code?: string }).code;
    const message = `${label}: ${cause.name}${code ? ` ${code}` : ''}: ${cause.message}`;
    const ambiguous = code !== undefined && AMBIGUOUS_CODES.has(code);
    if (code !== undefined && TIMEOUT_CODES.has(code)) {
      return new VendorTimeoutError(message, code, true, { cause, ambiguous });
    }
    const retriable = code !== undefined && !PERMANENT_CODES.has(code);
    return new VendorNetworkError(message, code, retriable, { cause, ambiguous });
  }

  /** The `message` of a JSON error body, else the start of the text; made safe to carry. */
  private vendorMessage(text: string): string {
    if (text === '') return '';
    let message = text;
    try {
      const parsed = JSON.parse(text) as unknown;
      if (isRecord(parsed) && typeof parsed.message === 'string') message = parsed.message;
    } catch {
      // not JSON: the text itself, shortened
    }
    return this.options.redactor.vendorMessage(message);
  }
}

/**
 * A request the stop aborted while the vendor held it: it may have acted on it. Retriable, so
 * that no caller turns it into a failed outcome; the stopped client starts no retry of it.
 */
function abortedAtStop(label: string): VendorNetworkError {
  return new VendorNetworkError(
    `${label}: no answer before the stop's deadline; aborted`,
    'UND_ERR_ABORTED',
    true,
    { ambiguous: true },
  );
}

async function readCapped(body: Dispatcher.ResponseData['body']): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > MAX_RESPONSE_BYTES) {
      body.destroy();
      throw new Error('response body too large');
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(label: string, status: number, text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new VendorResponseError(
      `${label}: vendor answered ${status} with a body that is not JSON`,
      status,
    );
  }
}
