import { readFile } from 'node:fs/promises';
import { request, type Dispatcher } from 'undici';
import type { TokenEndpointConfig } from '../config/kafka-security';

/** What kafkajs' `oauthBearerProvider` returns. */
export interface BearerToken {
  value: string;
}

export type BearerTokenProvider = () => Promise<BearerToken>;

/**
 * The token in `path`, read again at every call: kafkajs asks at each authentication (every new
 * broker connection), so a token that a sidecar or a projected volume replaces is picked up
 * without a restart. Errors name the setting, never the token.
 */
export function tokenFileProvider(path: string): BearerTokenProvider {
  return async () => {
    let value: string;
    try {
      value = (await readFile(path, 'utf8')).trim();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'error';
      throw new Error(`KAFKA_SASL_OAUTHBEARER_TOKEN_FILE cannot be read (${code})`, {
        cause: error,
      });
    }
    if (!value) throw new Error('KAFKA_SASL_OAUTHBEARER_TOKEN_FILE is empty');
    return { value };
  };
}

export interface ClientCredentialsOptions {
  now?: () => number;
  /** The longest one token request may take. */
  timeoutMs?: number;
  dispatcher?: Dispatcher;
}

/** A token is used until this long before it expires, or a fifth of its lifetime if shorter. */
const REFRESH_MARGIN_MS = 60_000;

/**
 * OAuth 2.0 client credentials (RFC 6749, 4.4) against the identity provider's token endpoint.
 * The token is kept until shortly before it expires (`expires_in`, or the JWT's `exp` when the
 * endpoint gives none; neither: a new token for every authentication), and concurrent callers
 * share one request. Errors name the endpoint and the OAuth error code, never the secret or the
 * token; the endpoint is named without credentials or query.
 */
export class ClientCredentialsProvider {
  private cached?: { value: string; refreshAt: number };
  private pending?: Promise<BearerToken>;
  private readonly now: () => number;
  private readonly endpoint: string;

  constructor(
    private readonly config: TokenEndpointConfig,
    private readonly options: ClientCredentialsOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    const url = new URL(config.url);
    this.endpoint = `${url.origin}${url.pathname}`;
  }

  /** For kafkajs: `sasl.oauthBearerProvider`. */
  readonly provide: BearerTokenProvider = () => {
    if (this.cached && this.now() < this.cached.refreshAt) {
      return Promise.resolve({ value: this.cached.value });
    }
    this.pending ??= this.fetchToken().finally(() => (this.pending = undefined));
    return this.pending;
  };

  private async fetchToken(): Promise<BearerToken> {
    const { clientId, clientSecret, scope, clientAuth } = this.config;
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    if (scope) form.set('scope', scope);
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    };
    if (clientAuth === 'basic') {
      // RFC 6749, 2.3.1: both parts form-encoded before they are joined.
      const pair = `${formEncode(clientId)}:${formEncode(clientSecret)}`;
      headers.authorization = `Basic ${Buffer.from(pair).toString('base64')}`;
    } else {
      form.set('client_id', clientId);
      form.set('client_secret', clientSecret);
    }
    const timeoutMs = this.options.timeoutMs ?? 10_000;
    const requestedAt = this.now();
    let status: number;
    let text: string;
    try {
      const response = await request(this.config.url, {
        method: 'POST',
        headers,
        body: form.toString(),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        signal: AbortSignal.timeout(timeoutMs),
        dispatcher: this.options.dispatcher,
      });
      status = response.statusCode;
      text = await response.body.text();
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).name;
      // The cause is undici's (a code and an address); the request it made is not part of it.
      throw new Error(`OAuth token endpoint ${this.endpoint} unreachable (${reason})`, {
        cause: error,
      });
    }
    const body = parseJson(text) ?? {};
    if (status !== 200) {
      const code = typeof body.error === 'string' ? `: ${safeCode(body.error)}` : '';
      throw new Error(`OAuth token endpoint ${this.endpoint} answered ${status}${code}`);
    }
    const token = body.access_token;
    if (typeof token !== 'string' || token === '') {
      throw new Error(`OAuth token endpoint ${this.endpoint} answered without an access_token`);
    }
    const expiresAt = expiryOf(body, token, requestedAt);
    if (expiresAt !== undefined) {
      const margin = Math.min(REFRESH_MARGIN_MS, (expiresAt - requestedAt) / 5);
      this.cached = { value: token, refreshAt: expiresAt - margin };
    } else {
      this.cached = undefined;
    }
    return { value: token };
  }
}

function formEncode(value: string): string {
  return encodeURIComponent(value).replace(/%20/g, '+');
}

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** An OAuth error code is a short ASCII word; anything else is not repeated. */
function safeCode(code: string): string {
  return /^[\w.-]{1,64}$/.test(code) ? code : 'error';
}

/** When the token expires (ms since the epoch): `expires_in`, else the JWT's `exp`, else unknown. */
function expiryOf(
  body: Record<string, unknown>,
  token: string,
  requestedAt: number,
): number | undefined {
  const expiresIn = Number(body.expires_in);
  if (Number.isFinite(expiresIn) && expiresIn > 0) return requestedAt + expiresIn * 1000;
  const payload = token.split('.')[1];
  if (!payload) return undefined;
  const claims = parseJson(Buffer.from(payload, 'base64url').toString('utf8'));
  const exp = Number(claims?.exp);
  return Number.isFinite(exp) && exp > 0 ? exp * 1000 : undefined;
}
