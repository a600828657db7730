import { SandboxServer } from '../../src/sandbox/sandbox.server';
import { waitFor } from '../support/kafka-helpers';

const RELAY_KEY = 'relay-key-sbx';
const API_KEY = 'api-key-sbx';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const campaign = (to: unknown = [{ email: 'ada@example.com' }]) => ({
  subject: 'Hi',
  recipients: { to },
});

describe(SandboxServer.name, () => {
  let sandbox: SandboxServer;
  let url: string;

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const sendCampaign = (body: unknown = campaign(), key = RELAY_KEY) =>
    post('/relay/v1/email/campaign', body, { 'x-relay-access-token': key });
  const createList = (body: unknown, key = API_KEY) =>
    post('/v1/contacts', body, { 'x-api-key': key });
  const putFaults = (faults: unknown) =>
    fetch(`${url}/_sandbox/faults`, { method: 'PUT', body: JSON.stringify(faults) });

  beforeEach(async () => {
    sandbox = new SandboxServer({ relayAccessToken: RELAY_KEY, apiKey: API_KEY, recordLimit: 3 });
    url = await sandbox.listen(0);
  });

  afterEach(() => sandbox.close());

  describe('the vendor endpoints', () => {
    it('accepts a campaign with the bare key or TOKEN <key>', async () => {
      for (const key of [RELAY_KEY, `TOKEN ${RELAY_KEY}`]) {
        const res = await sendCampaign(campaign(), key);
        expect(res.status).toBe(200);
        expect(await res.json()).toEqual({
          requestId: expect.stringMatching(UUID) as string,
          message: 'Email campaign accepted',
        });
      }
    });

    it('creates contact lists under /contacts and /audiences', async () => {
      const list = { name: 'News', members: [{ email: 'ada@example.com', tags: ['vip'] }] };
      const a = await createList(list);
      const b = await post('/v1/audiences', list, { 'x-api-key': API_KEY });
      expect([a.status, b.status]).toEqual([200, 200]);
      expect(((await a.json()) as { id: string }).id).toMatch(UUID);
      expect(sandbox.stats.membersAccepted).toBe(2);
    });

    it.each([
      ['no key', () => sendCampaign(campaign(), '')],
      ['a wrong relay key', () => sendCampaign(campaign(), 'nope')],
      ['the contacts key on the relay', () => sendCampaign(campaign(), API_KEY)],
      ['a wrong contacts key', () => createList({ name: 'x' }, RELAY_KEY)],
    ])('answers 401 {message} for %s', async (_, call) => {
      const res = await call();
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ message: 'API key is missing or invalid' });
    });

    it.each([
      ['a list without a name', () => createList({ members: [] }), 'name is required'],
      [
        'a member without email',
        () => createList({ name: 'x', members: [{ firstName: 'A' }] }),
        'members[0].email is required',
      ],
      [
        'a member field of the wrong type',
        () => createList({ name: 'x', members: [{ email: 'a@b.c', tags: 'vip' }] }),
        'members[0].tags has the wrong type',
      ],
      [
        'recipients that are not an array',
        () => sendCampaign(campaign('ada')),
        'recipients.to must be an array',
      ],
      [
        'a numeric subject',
        () => sendCampaign({ ...campaign(), subject: 1 }),
        'subject must be a string',
      ],
      ['a body that is not JSON', () => sendCampaign('{oops'), 'body must be a JSON object'],
    ])('answers 400 {message} for %s', async (_, call, message) => {
      const res = await call();
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ message });
    });

    it('answers 405 to other methods', async () => {
      expect((await fetch(`${url}/relay/v1/email/campaign`)).status).toBe(405);
    });
  });

  describe('the record', () => {
    it('keeps requests in full up to its limit and counts them all', async () => {
      for (let i = 0; i < 5; i++) await sendCampaign();

      const kept = (await (await fetch(`${url}/_sandbox/requests`)).json()) as unknown[];
      const stats = (await (await fetch(`${url}/_sandbox/stats`)).json()) as Record<
        string,
        unknown
      >;

      expect(kept).toHaveLength(3);
      expect(sandbox.requests.map((r) => r.seq)).toEqual([1, 2, 3]);
      expect(stats).toMatchObject({
        received: 5,
        recorded: 3,
        recipientsAccepted: 5,
        byStatus: { 200: 5 },
      });
    });

    it('forgets everything on DELETE', async () => {
      await sendCampaign();
      const res = await fetch(`${url}/_sandbox/requests`, { method: 'DELETE' });
      expect(res.status).toBe(204);
      expect(sandbox.requests).toHaveLength(0);
      expect(sandbox.stats.received).toBe(0);
    });
  });

  describe('faults at run time', () => {
    it('refuses an invalid fault configuration, listing what is wrong', async () => {
      const res = await putFaults({
        hangShare: 2,
        statuses: [{ status: 503, share: 0.5 }],
        bogus: 1,
      });
      expect(res.status).toBe(400);
      const { message } = (await res.json()) as { message: string };
      expect(message).toContain('unknown fault bogus');
      expect(message).toContain('hangShare must be a number in [0, 1]');
    });

    it('answers a share of requests with a status and Retry-After in both forms', async () => {
      expect(
        (await putFaults({ statuses: [{ status: 429, share: 1, retryAfterSeconds: 2 }] })).status,
      ).toBe(200);
      const seconds = await sendCampaign();
      expect(seconds.status).toBe(429);
      expect(seconds.headers.get('retry-after')).toBe('2');

      await putFaults({
        statuses: [{ status: 503, share: 1, retryAfterSeconds: 5, retryAfterForm: 'http-date' }],
      });
      const date = await sendCampaign();
      expect(date.status).toBe(503);
      const at = Date.parse(date.headers.get('retry-after') ?? '');
      expect(at - Date.now()).toBeGreaterThan(3000);
      expect(sandbox.requests.map((r) => r.fault)).toEqual(['status', 'status']);
    });

    it('answers 413 above the recipient limit', async () => {
      await putFaults({ maxRecipients: 1 });
      const res = await sendCampaign(campaign([{ email: 'a@b.c' }, { email: 'd@e.f' }]));
      expect(res.status).toBe(413);
      expect(await res.json()).toEqual({ message: 'at most 1 recipients per request' });
    });

    it('rate-limits with 429 and Retry-After', async () => {
      await putFaults({ rateLimit: { requests: 2, windowMs: 60_000 } });
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await sendCampaign()).status);
      expect(statuses).toEqual([200, 200, 429]);
      expect(sandbox.stats.byFault['rate-limit']).toBe(1);
    });

    it('resets connections and hangs requests', async () => {
      await putFaults({ resetShare: 1 });
      await expect(sendCampaign()).rejects.toThrow('fetch failed');

      await putFaults({ hangShare: 1 });
      await expect(
        fetch(`${url}/relay/v1/email/campaign`, {
          method: 'POST',
          body: '{}',
          signal: AbortSignal.timeout(200),
        }),
      ).rejects.toThrow(/aborted|timeout/i);
      expect(sandbox.stats.byFault).toEqual({ reset: 1, hang: 1 });
    });

    it('counts the requests its latency holds, by path, until they are answered', async () => {
      await putFaults({ latencyMs: 1_000 }); // long enough to be seen held on a saturated CPU
      const answered = createList({ name: 'News', members: [] });
      await waitFor(() => sandbox.stats.held['/v1/contacts'], {
        what: 'the request held',
        timeoutMs: 2_000,
        intervalMs: 5,
      });
      expect(sandbox.requests).toHaveLength(0);
      const stats = (await (await fetch(`${url}/_sandbox/stats`)).json()) as { held: unknown };
      expect(stats.held).toEqual({ '/v1/contacts': 1 });

      expect((await answered).status).toBe(200);
      expect(sandbox.stats.held).toEqual({});
      expect(sandbox.requests.map((r) => r.path)).toEqual(['/v1/contacts']);
    });

    it('adds latency and heals on DELETE', async () => {
      await putFaults({ latencyMs: 150, statuses: [{ status: 500, share: 1 }] });
      const started = Date.now();
      expect((await sendCampaign()).status).toBe(500);
      expect(Date.now() - started).toBeGreaterThanOrEqual(140);

      expect((await fetch(`${url}/_sandbox/faults`, { method: 'DELETE' })).status).toBe(204);
      expect((await sendCampaign()).status).toBe(200);
      expect(await (await fetch(`${url}/_sandbox/faults`)).json()).toEqual({});
    });
  });
});
