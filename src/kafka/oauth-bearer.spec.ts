import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TokenEndpointConfig } from '../config/kafka-security';
import { ClientCredentialsProvider, tokenFileProvider } from './oauth-bearer';

describe(tokenFileProvider.name, () => {
  const dir = mkdtempSync(join(tmpdir(), 'mailbridge-token-'));
  const path = join(dir, 'token');

  it('reads the file again at every call, so that a replaced token is used', async () => {
    const provide = tokenFileProvider(path);
    writeFileSync(path, 'first-token\n');
    await expect(provide()).resolves.toEqual({ value: 'first-token' });
    writeFileSync(path, 'second-token');
    await expect(provide()).resolves.toEqual({ value: 'second-token' });
  });

  it('names the setting when the file is missing or empty', async () => {
    await expect(tokenFileProvider(join(dir, 'missing'))()).rejects.toThrow(
      'KAFKA_SASL_OAUTHBEARER_TOKEN_FILE cannot be read (ENOENT)',
    );
    writeFileSync(join(dir, 'empty'), '\n');
    await expect(tokenFileProvider(join(dir, 'empty'))()).rejects.toThrow(
      'KAFKA_SASL_OAUTHBEARER_TOKEN_FILE is empty',
    );
  });
});

interface Seen {
  authorization?: string;
  form: URLSearchParams;
}

/** A token endpoint on loopback answering what the test queues (status and JSON body). */
class TokenEndpoint {
  readonly seen: Seen[] = [];
  answers: Array<{ status: number; body: unknown }> = [];
  private server!: Server;
  /** Answers are held until released, to see concurrent callers share one request. */
  hold?: Promise<void>;

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      void this.answer(req).then(({ status, body }) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/oauth2/token`;
  }

  private async answer(req: IncomingMessage) {
    let text = '';
    for await (const chunk of req) text += String(chunk);
    this.seen.push({ authorization: req.headers.authorization, form: new URLSearchParams(text) });
    await this.hold;
    return this.answers.shift() ?? { status: 200, body: { access_token: 'default-token' } };
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

function jwt(claims: object): string {
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  return `${part({ alg: 'none' })}.${part(claims)}.`;
}

describe(ClientCredentialsProvider.name, () => {
  let endpoint: TokenEndpoint;
  let config: TokenEndpointConfig;
  let now: number;

  beforeEach(async () => {
    endpoint = new TokenEndpoint();
    now = 1_000_000;
    config = {
      url: await endpoint.start(),
      clientId: 'mail bridge',
      clientSecret: 'client-secret-value',
      clientAuth: 'basic',
    };
  });

  afterEach(() => endpoint.stop());

  const provider = (overrides: Partial<TokenEndpointConfig> = {}) =>
    new ClientCredentialsProvider({ ...config, ...overrides }, { now: () => now });

  it('asks with HTTP Basic client authentication, form-encoded, and the scope', async () => {
    endpoint.answers.push({ status: 200, body: { access_token: 'token-1', expires_in: 300 } });
    await expect(provider({ scope: 'kafka mail' }).provide()).resolves.toEqual({
      value: 'token-1',
    });
    const [seen] = endpoint.seen;
    expect(seen.authorization).toBe(
      `Basic ${Buffer.from('mail+bridge:client-secret-value').toString('base64')}`,
    );
    expect(Object.fromEntries(seen.form)).toEqual({
      grant_type: 'client_credentials',
      scope: 'kafka mail',
    });
  });

  it('sends the credentials in the form instead with clientAuth post', async () => {
    await provider({ clientAuth: 'post' }).provide();
    const [seen] = endpoint.seen;
    expect(seen.authorization).toBeUndefined();
    expect(Object.fromEntries(seen.form)).toEqual({
      grant_type: 'client_credentials',
      client_id: 'mail bridge',
      client_secret: 'client-secret-value',
    });
  });

  it('keeps a token until shortly before it expires, then asks for a new one', async () => {
    endpoint.answers.push(
      { status: 200, body: { access_token: 'token-1', expires_in: 3600 } },
      { status: 200, body: { access_token: 'token-2', expires_in: 3600 } },
    );
    const tokens = provider();
    expect((await tokens.provide()).value).toBe('token-1');
    now += 3_539_000; // 61 s before expiry
    expect((await tokens.provide()).value).toBe('token-1');
    now += 2_000; // 59 s before: within the last minute
    expect((await tokens.provide()).value).toBe('token-2');
    expect(endpoint.seen).toHaveLength(2);
  });

  it('refreshes a short-lived token after four fifths of its life', async () => {
    endpoint.answers.push(
      { status: 200, body: { access_token: 'token-1', expires_in: 100 } },
      { status: 200, body: { access_token: 'token-2', expires_in: 100 } },
    );
    const tokens = provider();
    await tokens.provide();
    now += 79_000;
    expect((await tokens.provide()).value).toBe('token-1');
    now += 2_000;
    expect((await tokens.provide()).value).toBe('token-2');
  });

  it("takes the JWT's exp without expires_in, and caches nothing when neither says", async () => {
    const signed = jwt({ sub: 'mailbridge', exp: now / 1000 + 600 });
    endpoint.answers.push(
      { status: 200, body: { access_token: signed } },
      { status: 200, body: { access_token: 'opaque-1' } },
      { status: 200, body: { access_token: 'opaque-2' } },
    );
    const fromJwt = provider();
    await fromJwt.provide();
    now += 60_000;
    expect((await fromJwt.provide()).value).toBe(signed);
    const opaque = provider();
    expect((await opaque.provide()).value).toBe('opaque-1');
    expect((await opaque.provide()).value).toBe('opaque-2');
  });

  it('makes one request for callers that ask at the same time', async () => {
    let release!: () => void;
    endpoint.hold = new Promise((resolve) => (release = resolve));
    endpoint.answers.push({ status: 200, body: { access_token: 'shared', expires_in: 300 } });
    const tokens = provider();
    const asked = [tokens.provide(), tokens.provide(), tokens.provide()];
    // All three wait on one request, answered once the endpoint has seen it.
    await waitUntil(() => endpoint.seen.length === 1);
    release();
    expect((await Promise.all(asked)).map((t) => t.value)).toEqual(['shared', 'shared', 'shared']);
    expect(endpoint.seen).toHaveLength(1);
  });

  it('fails with the status and OAuth error code, never the secret or description, and asks again next time', async () => {
    endpoint.answers.push(
      {
        status: 401,
        body: {
          error: 'invalid_client',
          error_description: 'client-secret-value is not the secret of mail bridge',
        },
      },
      { status: 200, body: { access_token: 'token-after-error', expires_in: 300 } },
    );
    const tokens = provider();
    const error = await tokens.provide().then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error?.message).toBe(`OAuth token endpoint ${config.url} answered 401: invalid_client`);
    expect(error?.message).not.toContain('client-secret-value');
    expect((await tokens.provide()).value).toBe('token-after-error');
  });

  it('fails on an answer without a token, and names no credentials of the URL', async () => {
    endpoint.answers.push({ status: 200, body: { token_type: 'bearer' } });
    const url = new URL(config.url);
    url.username = 'user';
    url.password = 'url-password';
    url.search = '?tenant=secret-tenant';
    await expect(provider({ url: url.toString() }).provide()).rejects.toThrow(
      `OAuth token endpoint ${config.url} answered without an access_token`,
    );
  });

  it('says when the endpoint cannot be reached', async () => {
    await expect(provider({ url: 'http://127.0.0.1:1/oauth2/token' }).provide()).rejects.toThrow(
      'OAuth token endpoint http://127.0.0.1:1/oauth2/token unreachable (ECONNREFUSED)',
    );
  });
});

async function waitUntil(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}
