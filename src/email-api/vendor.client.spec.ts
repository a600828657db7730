import { inspect } from 'node:util';
import { MockAgent, errors } from 'undici';
import type { VendorConfig } from '../config/app-config';
import type { RequestBudget } from './request-budget';
import { VendorClient } from './vendor.client';
import {
  StoppingError,
  VendorAuthError,
  VendorConfigError,
  VendorError,
  VendorNetworkError,
  VendorRequestError,
  VendorResponseError,
  VendorTimeoutError,
} from './vendor.errors';
import type { CampaignChunkResult, CampaignRecipient, CampaignRequest } from './vendor.types';

const RELAY_KEY = 'relay-secret-4f9c2a77';
const API_KEY = 'contacts-secret-8b1d7e55';
const RELAY = 'https://relay.vendor.test';
const API = 'https://api.vendor.test';
const SEND_PATH = '/relay/v1/email/campaign';
const NOW = Date.parse('2026-11-21T10:00:00Z');
const UUID = '3f2b8c1e-7d4a-4e5b-9c6d-1a2b3c4d5e6f';

function vendorConfig(overrides: Partial<VendorConfig> = {}): VendorConfig {
  return {
    relayBaseUrl: `${RELAY}/relay/v1`,
    baseUrl: `${API}/v1`,
    contactsPath: '/contacts',
    relayAccessToken: RELAY_KEY,
    relayTokenForm: 'bare',
    mergeEscapesHtml: true,
    apiKey: API_KEY,
    allowInsecureHosts: [],
    connectTimeoutMs: 1000,
    headersTimeoutMs: 1000,
    bodyTimeoutMs: 1000,
    retryMaxAttempts: 4,
    retryBaseMs: 100,
    retryCapMs: 1000,
    retryAfterMaxMs: 60_000,
    retryAmbiguous: true,
    maxRecipientsPerRequest: 1000,
    maxBodyBytes: 5_000_000,
    poolConnections: 4,
    chunkConcurrency: 1,
    ...overrides,
  };
}

function recipients(count: number): CampaignRecipient[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `Person ${i}`,
    email: `person${i}@example.com`,
    attributes: { FIRST_NAME: `P${i}` },
  }));
}

function campaign(to: CampaignRecipient[] = recipients(1)): CampaignRequest {
  return {
    subject: 'Hello {{FIRST_NAME}}',
    body: '<p>Hi {{FIRST_NAME}}</p>',
    preview: 'Hi',
    campaignId: 'welcome-v1',
    sender: { from: { name: 'Shop', email: 'hello@shop.example' } },
    recipients: { to },
  };
}

interface Seen {
  headers: Record<string, string>;
  body: CampaignRequest & { name?: string };
}

describe(VendorClient.name, () => {
  let agent: MockAgent;
  let sleeps: number[];
  let logLines: string[];
  let seen: Seen[];
  let client: VendorClient;

  const makeClient = (overrides: Partial<VendorConfig> = {}) =>
    new VendorClient(vendorConfig(overrides), {
      dispatcher: agent,
      random: () => 0.5,
      now: () => NOW,
      sleep: (ms) => {
        sleeps.push(ms);
        return Promise.resolve();
      },
      logger: { log: (m) => logLines.push(m), warn: (m) => logLines.push(m) },
    });

  /** Answers the next campaign send with `status` and `data`, recording what was sent. */
  const replySend = (status: number, data?: object | string, headers?: Record<string, string>) =>
    agent
      .get(RELAY)
      .intercept({ path: SEND_PATH, method: 'POST' })
      .reply((opts) => {
        seen.push({
          headers: opts.headers as Record<string, string>,
          body: JSON.parse(opts.body as string) as Seen['body'],
        });
        return {
          statusCode: status,
          data: data ?? { requestId: `req-${seen.length}`, message: 'queued' },
          responseOptions: { headers },
        };
      });
  const failSend = (error: Error) =>
    agent.get(RELAY).intercept({ path: SEND_PATH, method: 'POST' }).replyWithError(error);

  beforeEach(() => {
    agent = new MockAgent();
    agent.disableNetConnect();
    sleeps = [];
    logLines = [];
    seen = [];
    client = makeClient();
  });

  afterEach(async () => {
    agent.assertNoPendingInterceptors();
    await client.close();
    await agent.close();
  });

  describe('requests and responses', () => {
    it('posts the campaign with the bare relay key and returns the requestId', async () => {
      replySend(200, { requestId: 'req-abc', message: 'Email campaign accepted' });

      const result = await client.sendCampaign(campaign());

      expect(result).toEqual([
        {
          ok: true,
          requestId: 'req-abc',
          message: 'Email campaign accepted',
          recipientIndexes: [0],
          attempts: 1,
          ambiguousAttempts: 0,
        },
      ]);
      expect(seen[0].headers).toMatchObject({
        'content-type': 'application/json',
        accept: 'application/json',
        'x-relay-access-token': RELAY_KEY,
      });
      expect(seen[0].headers['x-api-key']).toBeUndefined();
      expect(seen[0].body).toEqual(campaign());
    });

    it('sends the relay key as TOKEN <key> when configured so', async () => {
      client = makeClient({ relayTokenForm: 'token-prefix' });
      replySend(202);

      await client.sendCampaign(campaign());

      expect(seen[0].headers['x-relay-access-token']).toBe(`TOKEN ${RELAY_KEY}`);
    });

    it('creates a contact list with X-API-KEY on the configured path', async () => {
      client = makeClient({ contactsPath: '/audiences' });
      let headers: Record<string, string> = {};
      agent
        .get(API)
        .intercept({ path: '/v1/audiences', method: 'POST' })
        .reply((opts) => {
          headers = opts.headers as Record<string, string>;
          return { statusCode: 200, data: { id: UUID } };
        });

      const created = await client.createContactList({
        name: 'Newsletter',
        members: [{ email: 'ada@example.com', firstName: 'Ada', tags: ['vip'] }],
      });

      expect(created).toEqual({ id: UUID, ambiguousAttempts: 0 });
      expect(headers['x-api-key']).toBe(API_KEY);
      expect(headers['x-relay-access-token']).toBeUndefined();
    });
  });

  describe('status classes', () => {
    it.each([408, 425, 429, 500, 502, 503, 504])('retries %i, then succeeds', async (status) => {
      replySend(status, { message: 'busy' });
      replySend(200);

      const [entry] = await client.sendCampaign(campaign());

      expect(entry).toMatchObject({ ok: true, requestId: 'req-2', attempts: 2 });
      expect(sleeps).toEqual([50]); // full jitter: 0.5 × min(cap, base × 2^0)
    });

    it.each([400, 404, 405, 409, 422])('gives up at once on %i', async (status) => {
      replySend(status, { message: 'recipients.to must be an array' });

      const [entry] = await client.sendCampaign(campaign());

      expect(entry.ok).toBe(false);
      const { error, attempts } = entry as Extract<CampaignChunkResult, { ok: false }>;
      expect(error).toBeInstanceOf(VendorError);
      expect(error).toMatchObject({ status, retriable: false });
      expect(error.message).toContain('recipients.to must be an array');
      expect(attempts).toBe(1);
      expect(sleeps).toEqual([]);
    });

    it.each([401, 403])(
      'reports %i as an auth error and sends no further chunk',
      async (status) => {
        client = makeClient({ maxRecipientsPerRequest: 1 });
        replySend(status, { message: 'API key is missing or invalid' });

        const result = await client.sendCampaign(campaign(recipients(3)));

        expect(seen).toHaveLength(1);
        expect(result.map((r) => r.ok)).toEqual([false, false, false]);
        for (const entry of result) {
          const { error } = entry as Extract<CampaignChunkResult, { ok: false }>;
          expect(error).toBeInstanceOf(VendorAuthError);
          expect(error).toMatchObject({ status, retriable: false });
        }
      },
    );

    it('gives back the last retriable error once the attempts are spent', async () => {
      for (let i = 0; i < 4; i++) replySend(503);

      const [entry] = await client.sendCampaign(campaign());

      expect(entry).toMatchObject({ ok: false, attempts: 4 });
      expect((entry as { error: VendorError }).error).toMatchObject({
        status: 503,
        retriable: true,
      });
      expect(sleeps).toEqual([50, 100, 200]);
    });

    it('refuses a redirect instead of following it', async () => {
      replySend(307, '', { location: 'https://elsewhere.test/steal' });

      const [entry] = await client.sendCampaign(campaign());

      expect(entry).toMatchObject({ ok: false, attempts: 1 });
      expect((entry as { error: VendorError }).error).toMatchObject({
        status: 307,
        retriable: false,
      });
    });
  });

  describe('Retry-After', () => {
    it('waits the seconds the vendor asks for', async () => {
      replySend(429, { message: 'slow down' }, { 'retry-after': '3' });
      replySend(200);

      await client.sendCampaign(campaign());

      expect(sleeps).toEqual([3000]);
    });

    it('waits until an HTTP-date', async () => {
      const at = new Date(NOW + 7000).toUTCString();
      replySend(503, '', { 'retry-after': at });
      replySend(200);

      await client.sendCampaign(campaign());

      expect(sleeps).toEqual([7000]);
    });

    it('stops retrying when asked to wait longer than configured', async () => {
      replySend(429, '', { 'retry-after': '600' });

      const [entry] = await client.sendCampaign(campaign());

      expect(entry).toMatchObject({ ok: false, attempts: 1 });
      expect((entry as { error: VendorError }).error).toMatchObject({
        status: 429,
        retriable: true,
        retryAfterMs: 600_000,
      });
    });
  });

  describe('network failures', () => {
    it.each([
      ['headers timeout', () => new errors.HeadersTimeoutError()],
      ['body timeout', () => new errors.BodyTimeoutError()],
      ['connect timeout', () => new errors.ConnectTimeoutError()],
    ])('retries a %s, then reports a VendorTimeoutError', async (_, make) => {
      for (let i = 0; i < 4; i++) failSend(make());

      const [entry] = await client.sendCampaign(campaign());

      expect(entry).toMatchObject({ ok: false, attempts: 4 });
      const { error } = entry as { error: VendorError };
      expect(error).toBeInstanceOf(VendorTimeoutError);
      expect(error.retriable).toBe(true);
      expect(error.cause).toBeInstanceOf(Error);
    });

    it.each([
      ['headers timeout', true, () => new errors.HeadersTimeoutError()],
      ['body timeout', true, () => new errors.BodyTimeoutError()],
      ['socket closed by the peer', true, () => new errors.SocketError('other side closed')],
      ['ECONNRESET', true, () => Object.assign(new Error('reset'), { code: 'ECONNRESET' })],
      ['request aborted by our own stop', true, () => new errors.ClientDestroyedError()],
      ['connect timeout', false, () => new errors.ConnectTimeoutError()],
      ['pool already closed', false, () => new errors.ClientClosedError()],
      ['ECONNREFUSED', false, () => Object.assign(new Error('refused'), { code: 'ECONNREFUSED' })],
    ])('a %s is ambiguous (the request may have been written): %s', async (_, ambiguous, make) => {
      failSend(make());
      replySend(200);

      const [entry] = await client.sendCampaign(campaign());

      expect(entry).toMatchObject({
        ok: true,
        attempts: 2,
        ambiguousAttempts: ambiguous ? 1 : 0,
      });
    });

    it('does not send again after a lost answer when ambiguity must not be resent', async () => {
      await client.close();
      client = makeClient({ retryAmbiguous: false });
      failSend(new errors.HeadersTimeoutError());

      const [entry] = await client.sendCampaign(campaign());

      expect(entry).toMatchObject({ ok: false, attempts: 1, ambiguousAttempts: 1 });
      expect((entry as { error: VendorError }).error.ambiguous).toBe(true);
      expect(sleeps).toEqual([]); // no second attempt was even scheduled
    });

    it.each([
      ['socket closed by the peer', () => new errors.SocketError('other side closed')],
      ['ECONNRESET', () => Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })],
      ['ECONNREFUSED', () => Object.assign(new Error('connect refused'), { code: 'ECONNREFUSED' })],
      // Node's own socket errors are not `instanceof Error` inside jest's module realm.
      [
        'reset from another realm',
        () => ({ name: 'Error', message: 'read ECONNRESET', code: 'ECONNRESET' }) as Error,
      ],
    ])('retries after a %s', async (_, make) => {
      failSend(make());
      replySend(200);

      const [entry] = await client.sendCampaign(campaign());

      expect(entry).toMatchObject({ ok: true, attempts: 2 });
    });

    it('does not retry a failure of its own making', async () => {
      failSend(new errors.InvalidArgumentError('invalid header'));

      const [entry] = await client.sendCampaign(campaign());

      expect(entry).toMatchObject({ ok: false, attempts: 1 });
      expect((entry as { error: VendorError }).error).toBeInstanceOf(VendorNetworkError);
      expect((entry as { error: VendorError }).error.retriable).toBe(false);
    });
  });

  describe('unexpected 2xx bodies', () => {
    it.each([
      ['text', 'OK'],
      ['an empty body', ''],
      ['an object without requestId', { message: 'sent' }],
      ['a numeric requestId', { requestId: 42 }],
      ['an array', [{ requestId: 'x' }]],
    ])('treats %s as an error, not a success, and does not resend', async (_, data) => {
      replySend(200, data);

      const [entry] = await client.sendCampaign(campaign());

      expect(entry).toMatchObject({ ok: false, attempts: 1 });
      expect((entry as { error: VendorError }).error).toBeInstanceOf(VendorResponseError);
    });

    it('rejects a contact list id that is not a UUID', async () => {
      agent
        .get(API)
        .intercept({ path: '/v1/contacts', method: 'POST' })
        .reply(200, { id: 'list-1' });

      await expect(client.createContactList({ name: 'Newsletter' })).rejects.toThrow(
        VendorResponseError,
      );
    });

    it('throws the contact creation error once the retries are spent', async () => {
      for (let i = 0; i < 4; i++) {
        agent.get(API).intercept({ path: '/v1/contacts', method: 'POST' }).reply(500, 'oops');
      }

      await expect(client.createContactList({ name: 'Newsletter' })).rejects.toMatchObject({
        status: 500,
        retriable: true,
      });
      expect(sleeps).toHaveLength(3);
    });
  });

  describe('request budget', () => {
    let steps: string[];
    const budget: RequestBudget = {
      take: (endpoint) => {
        steps.push(`take ${endpoint}`);
        return Promise.resolve();
      },
      shrink: (endpoint, ms) => void steps.push(`shrink ${endpoint} ${ms}`),
    };
    const budgeted = () =>
      new VendorClient(vendorConfig(), {
        dispatcher: agent,
        random: () => 0.5,
        now: () => NOW,
        sleep: () => Promise.resolve(),
        logger: { log: () => undefined, warn: () => undefined },
        budget,
      });
    const replyContacts = (
      status: number,
      data: object | string,
      headers?: Record<string, string>,
    ) =>
      agent
        .get(API)
        .intercept({ path: '/v1/contacts', method: 'POST' })
        .reply(() => {
          steps.push('write contacts');
          return { statusCode: status, data, responseOptions: { headers } };
        });

    beforeEach(() => {
      steps = [];
      client = budgeted();
    });

    it('takes a token right before every attempt, retries included', async () => {
      replyContacts(503, { message: 'busy' });
      replyContacts(200, { id: UUID });

      await client.createContactList({ name: 'Newsletter' });

      expect(steps).toEqual(['take contacts', 'write contacts', 'take contacts', 'write contacts']);
    });

    it("shrinks the endpoint's budget by a 429's Retry-After, and by nothing else", async () => {
      replyContacts(429, { message: 'slow down' }, { 'retry-after': '7' });
      replyContacts(429, { message: 'slow down' });
      replyContacts(503, { message: 'busy' }, { 'retry-after': '5' });
      replyContacts(200, { id: UUID });

      await client.createContactList({ name: 'Newsletter' });

      expect(steps.filter((s) => s.startsWith('shrink'))).toEqual(['shrink contacts 7000']);
    });

    it("takes a campaign request's token before marking it, at every attempt", async () => {
      replySend(429, { message: 'slow down' }, { 'retry-after': '2' });
      replySend(200);

      await client.sendCampaign(campaign(), {
        beforeWrite: (indexes) => {
          steps.push('mark sending');
          return Promise.resolve(new Set(indexes));
        },
      });

      expect(steps).toEqual([
        'take relay',
        'mark sending',
        'shrink relay 2000',
        'take relay',
        'mark sending',
      ]);
      expect(seen).toHaveLength(2);
    });

    it("takes a contact list's token before the caller marks it, and sends nothing the mark refuses", async () => {
      replyContacts(200, { id: UUID });
      const mark = () => {
        steps.push('mark sending');
        return Promise.resolve();
      };
      await client.createContactList({ name: 'Newsletter' }, { beforeWrite: mark });
      expect(steps).toEqual(['take contacts', 'mark sending', 'write contacts']);

      steps.length = 0;
      const lost = new Error('claim lost');
      await expect(
        client.createContactList({ name: 'Other' }, { beforeWrite: () => Promise.reject(lost) }),
      ).rejects.toBe(lost);
      expect(steps).toEqual(['take contacts']);
    });

    it('lets a stop end the wait for a token without turning it into a vendor failure', async () => {
      client = new VendorClient(vendorConfig(), {
        dispatcher: agent,
        sleep: () => Promise.resolve(),
        logger: { log: () => undefined, warn: () => undefined },
        budget: { take: () => Promise.reject(new StoppingError()), shrink: () => undefined },
      });

      await expect(client.createContactList({ name: 'Newsletter' })).rejects.toBeInstanceOf(
        StoppingError,
      );
    });
  });

  describe('observer (metrics)', () => {
    let requests: Array<[string, string]>;
    let retries: Array<[string, string]>;
    let seconds: number[];
    const observed = (overrides: Partial<VendorConfig> = {}) =>
      new VendorClient(vendorConfig(overrides), {
        dispatcher: agent,
        random: () => 0.5,
        now: () => NOW,
        sleep: () => Promise.resolve(),
        logger: { log: () => undefined, warn: () => undefined },
        observer: {
          vendorRequest: (endpoint, status, s) => {
            requests.push([endpoint, status]);
            seconds.push(s);
          },
          vendorRetry: (endpoint, reason) => retries.push([endpoint, reason]),
        },
      });

    beforeEach(() => {
      requests = [];
      retries = [];
      seconds = [];
    });

    it('reports every relay attempt with its status and each retry with its reason', async () => {
      client = observed();
      replySend(429, { message: 'slow down' });
      replySend(503, { message: 'busy' });
      replySend(200);

      await client.sendCampaign(campaign());

      expect(requests).toEqual([
        ['relay', '429'],
        ['relay', '503'],
        ['relay', '200'],
      ]);
      expect(retries).toEqual([
        ['relay', 'rate_limited'],
        ['relay', 'server_error'],
      ]);
      for (const s of seconds) expect(s).toBeGreaterThanOrEqual(0);
    });

    it('labels an attempt without an answer timeout or error, and its retry likewise', async () => {
      client = observed();
      failSend(new errors.HeadersTimeoutError());
      failSend(Object.assign(new Error('reset'), { code: 'ECONNRESET' }));
      replySend(200);

      await client.sendCampaign(campaign());

      expect(requests).toEqual([
        ['relay', 'timeout'],
        ['relay', 'error'],
        ['relay', '200'],
      ]);
      expect(retries).toEqual([
        ['relay', 'timeout'],
        ['relay', 'network'],
      ]);
    });

    it('reports contact-list attempts as contacts, and no retry for a final answer', async () => {
      client = observed();
      agent
        .get(API)
        .intercept({ path: '/v1/contacts', method: 'POST' })
        .reply(422, { message: 'bad list' });

      await expect(
        client.createContactList({ name: 'list', members: [{ email: 'a@example.com' }] }),
      ).rejects.toBeInstanceOf(VendorError);

      expect(requests).toEqual([['contacts', '422']]);
      expect(retries).toEqual([]);
    });
  });

  describe('splitting', () => {
    it('sends at most N recipients per request and maps each back to its requestId', async () => {
      client = makeClient({ maxRecipientsPerRequest: 3 });
      for (let i = 0; i < 3; i++) replySend(200);

      const result = await client.sendCampaign(campaign(recipients(7)));

      expect(seen.map((s) => s.body.recipients.to.length)).toEqual([3, 3, 1]);
      expect(result.map((r) => r.recipientIndexes)).toEqual([[0, 1, 2], [3, 4, 5], [6]]);
      expect(result.map((r) => r.ok && r.requestId)).toEqual(['req-1', 'req-2', 'req-3']);
      expect(seen[2].body.recipients.to[0].email).toBe('person6@example.com');
    });

    it('keeps every request body under the byte limit', async () => {
      const limit = 1200;
      client = makeClient({ maxBodyBytes: limit });
      replySend(200).persist();

      const result = await client.sendCampaign(campaign(recipients(20)));

      const sizes = seen.map((s) => Buffer.byteLength(JSON.stringify(s.body)));
      expect(seen.length).toBeGreaterThan(1);
      expect(Math.max(...sizes)).toBeLessThanOrEqual(limit);
      expect(result.flatMap((r) => r.recipientIndexes)).toEqual([...Array(20).keys()]);
    });

    it('halves a request the vendor answers with 413, and remembers the smaller size', async () => {
      replySend(413, { message: 'too many recipients' });
      replySend(200);
      replySend(200);

      const result = await client.sendCampaign(campaign(recipients(4)));

      expect(seen.map((s) => s.body.recipients.to.length)).toEqual([4, 2, 2]);
      expect(result.map((r) => [r.ok, r.recipientIndexes])).toEqual([
        [true, [0, 1]],
        [true, [2, 3]],
      ]);
      expect(logLines.some((l) => l.includes('413'))).toBe(true);

      replySend(200);
      replySend(200);
      await client.sendCampaign(campaign(recipients(3)));
      expect(seen.slice(3).map((s) => s.body.recipients.to.length)).toEqual([2, 1]);
    });

    it('reports a single recipient that still gets 413', async () => {
      replySend(413);

      const [entry] = await client.sendCampaign(campaign());

      expect(entry).toMatchObject({ ok: false, recipientIndexes: [0] });
      expect((entry as { error: VendorError }).error).toMatchObject({
        status: 413,
        retriable: false,
      });
    });
  });

  describe('header safety', () => {
    it('refuses an unsafe campaign before sending anything', async () => {
      await expect(
        client.sendCampaign({ ...campaign(), subject: 'Hi\r\nBcc: all@example.com' }),
      ).rejects.toThrow(VendorRequestError);
      expect(seen).toHaveLength(0);
    });

    it('accepts https: and mailto: unsubscribe targets', async () => {
      replySend(200);
      const headers = {
        'List-Unsubscribe': '<https://shop.example/u/1>, <mailto:unsub@shop.example>',
        'X-HEADER-1': 'one',
      };

      const [entry] = await client.sendCampaign({ ...campaign(), headers });

      expect(entry.ok).toBe(true);
      expect(seen[0].body.headers).toEqual(headers);
    });

    it('refuses only the recipients that are unsafe or have no email', async () => {
      replySend(200);
      const to: CampaignRecipient[] = [
        ...recipients(2),
        { name: 'Eve\r\nBcc: x@y.z', email: 'eve@example.com' },
        { name: 'Nobody', email: '' },
        { email: 'mallory@example.com', attributes: { FIRST_NAME: 'M\nBcc: x@y.z' } },
      ];

      const result = await client.sendCampaign(campaign(to));

      expect(seen[0].body.recipients.to.map((r) => r.email)).toEqual([
        'person0@example.com',
        'person1@example.com',
      ]);
      expect(result.map((r) => [r.ok, r.recipientIndexes])).toEqual([
        [true, [0, 1]],
        [false, [2]],
        [false, [3]],
        [false, [4]],
      ]);
      for (const entry of result.filter((r) => !r.ok)) {
        expect((entry as { error: VendorError }).error).toBeInstanceOf(VendorRequestError);
      }
    });

    it('refuses a campaign without any recipient that has an email', async () => {
      await expect(client.sendCampaign(campaign([]))).rejects.toThrow(VendorRequestError);
      await expect(client.sendCampaign(campaign([{ email: '' }]))).rejects.toThrow(
        'no recipient with a valid email address',
      );
    });

    it('refuses a contact list without a name or with a member without email', async () => {
      await expect(client.createContactList({ name: '' })).rejects.toThrow('name is required');
      await expect(
        client.createContactList({ name: 'L', members: [{ email: '' }] }),
      ).rejects.toThrow('members[0].email is required');
    });
  });

  describe('configuration', () => {
    it.each([
      ['plain http to a remote host', { relayBaseUrl: 'http://relay.vendor.test/relay/v1' }],
      ['credentials in the URL', { baseUrl: 'https://user:pw@api.vendor.test/v1' }],
      ['a key with a line break', { apiKey: 'abc\r\nX-Evil: 1' }],
    ])('refuses %s', (_, override) => {
      expect(() => makeClient(override)).toThrow(VendorConfigError);
    });

    it('allows http to loopback and to hosts allowed by name', () => {
      expect(() =>
        makeClient({ relayBaseUrl: 'http://127.0.0.1:8025/relay/v1', baseUrl: 'http://[::1]/v1' }),
      ).not.toThrow();
      expect(() =>
        makeClient({
          relayBaseUrl: 'http://sandbox:8025/relay/v1',
          allowInsecureHosts: ['sandbox'],
        }),
      ).not.toThrow();
    });
  });

  describe('secrets', () => {
    it('never puts a key into an error, a cause, a result or a log line', async () => {
      client = makeClient({ relayTokenForm: 'token-prefix', maxRecipientsPerRequest: 1 });
      const leaky = (message: string) =>
        Object.assign(new Error(message), { code: 'ECONNRESET', headers: { key: RELAY_KEY } });
      // Every failure mode, with the key echoed wherever a vendor or a library might echo it.
      failSend(leaky(`socket hang up sending x-relay-access-token: TOKEN ${RELAY_KEY}`));
      failSend(new errors.HeadersTimeoutError());
      failSend(new errors.SocketError(`closed (${RELAY_KEY})`));
      failSend(new errors.InvalidArgumentError(`invalid header value ${RELAY_KEY}`));
      replySend(500, { message: `internal error for key ${RELAY_KEY}` });
      replySend(500, `<html>${RELAY_KEY}</html>`);
      replySend(429, { message: `rate limited: ${RELAY_KEY}` }, { 'retry-after': '9999' });
      replySend(400, { message: `bad key TOKEN ${RELAY_KEY} for ada@example.com` });
      replySend(401, { message: `API key ${RELAY_KEY} is invalid` });
      agent
        .get(API)
        .intercept({ path: '/v1/contacts', method: 'POST' })
        .reply(403, { message: `key ${API_KEY} not allowed from this address` });

      const campaignResult = await client.sendCampaign(campaign(recipients(7)));
      const contactError = await client.createContactList({ name: 'L' }).catch((e: unknown) => e);

      expect(contactError).toBeInstanceOf(VendorAuthError);
      expect(campaignResult.filter((r) => !r.ok)).toHaveLength(7);
      const everything = [
        inspect(campaignResult, { depth: Infinity, showHidden: true }),
        inspect(contactError, { depth: Infinity, showHidden: true }),
        JSON.stringify(campaignResult),
        ...campaignResult.map((r) => (r.ok ? '' : `${r.error.message} ${String(r.error.stack)}`)),
        ...logLines,
      ].join('\n');
      expect(logLines.length).toBeGreaterThan(0);
      expect(everything).not.toContain(RELAY_KEY);
      expect(everything).not.toContain(API_KEY);
      expect(everything).not.toContain('ada@example.com');
      expect(everything).toContain('[redacted]');
    });
  });
});
