import { randomBytes } from 'node:crypto';
import { DAY_SECONDS, ListenerFixture } from '../../test/support/unsubscribe-listener';
import { UnsubscribeTokens } from './unsubscribe-token';
import { UnsubscribeListener, clientAddress } from './unsubscribe.listener';
import type { IncomingMessage } from 'node:http';

const ADDRESS = 'ada@example.com';

describe(UnsubscribeListener.name, () => {
  let fixture: ListenerFixture;
  afterEach(() => fixture.stop());

  describe('a link', () => {
    beforeEach(async () => {
      fixture = await new ListenerFixture().start();
    });

    it('GET shows the confirmation page and changes nothing', async () => {
      const token = fixture.tokens.seal(ADDRESS, 'marketing');
      const page = await fixture.send('GET', `/unsubscribe/${token}`);
      expect(page.status).toBe(200);
      expect(page.body).toContain('<form method="post">');
      expect(page.body).toContain('name="List-Unsubscribe" value="One-Click"');
      expect(page.body).not.toContain(ADDRESS);
      expect(page.headers['cache-control']).toBe('no-store');
      expect(page.headers['referrer-policy']).toBe('no-referrer');
      expect(fixture.changed).toBe(false);
      expect((await fixture.send('HEAD', `/unsubscribe/${token}`)).status).toBe(200);
      expect(fixture.changed).toBe(false);
    });

    it('POST (RFC 8058) suppresses the address for marketing and queues one event', async () => {
      const token = fixture.tokens.seal(ADDRESS, 'marketing');
      const answer = await fixture.postOneClick(token);
      expect(answer.status).toBe(200);
      expect(answer.body).toContain('You are unsubscribed');
      expect(fixture.suppression.added).toEqual([{ address: ADDRESS, scope: 'marketing' }]);
      expect(fixture.outbox.size).toBe(1);
      expect(fixture.kicks.count).toBe(1);
    });

    it('the same POST twice is one unsubscribe: one event, both answered 200', async () => {
      const token = fixture.tokens.seal(ADDRESS, 'marketing');
      expect((await fixture.postOneClick(token)).status).toBe(200);
      expect((await fixture.postOneClick(token)).status).toBe(200);
      expect(fixture.outbox.size).toBe(1);
    });

    it('a transactional link suppresses all mail', async () => {
      await fixture.postOneClick(fixture.tokens.seal(ADDRESS, 'transactional'));
      expect(fixture.suppression.added).toEqual([{ address: ADDRESS, scope: 'all' }]);
    });

    it.each([
      ['forged', () => `${'A'.repeat(8)}.${randomBytes(90).toString('base64url')}`, 403],
      [
        'sealed under another key',
        () =>
          new UnsubscribeTokens([randomBytes(32).toString('base64')], DAY_SECONDS).seal(
            ADDRESS,
            'marketing',
          ),
        403,
      ],
      ['malformed', () => 'not-a-token', 400],
    ])('refuses a %s token with a 4xx and changes nothing', async (_kind, token, status) => {
      expect((await fixture.postOneClick(token())).status).toBe(status);
      expect((await fixture.send('GET', `/unsubscribe/${token()}`)).status).toBe(status);
      expect(fixture.changed).toBe(false);
    });

    it('refuses an expired token with 410 and changes nothing', async () => {
      const past = new UnsubscribeTokens(
        [fixture.key],
        60 * DAY_SECONDS,
        () => Date.now() - 61 * DAY_SECONDS * 1000,
      );
      const token = past.seal(ADDRESS, 'marketing');
      expect((await fixture.postOneClick(token)).status).toBe(410);
      expect(fixture.changed).toBe(false);
    });

    it('answers 503 and queues no event when the suppression cannot be stored', async () => {
      fixture.suppression.failing = true;
      const answer = await fixture.postOneClick(fixture.tokens.seal(ADDRESS, 'marketing'));
      expect(answer.status).toBe(503);
      expect(fixture.outbox.size).toBe(0);
      fixture.suppression.failing = false;
      expect((await fixture.postOneClick(fixture.tokens.seal(ADDRESS, 'marketing'))).status).toBe(
        200,
      );
      // Each answer is counted by its status on /metrics.
      const counted = await fixture.metrics.answers.get();
      const count = (status: string) =>
        counted.values.find((v) => String(v.labels.status) === status)?.value;
      expect(count('503')).toBe(1);
      expect(count('200')).toBeGreaterThanOrEqual(1);
    });

    it('refuses a body past 1 KiB with 413 before changing anything', async () => {
      const token = fixture.tokens.seal(ADDRESS, 'marketing');
      const answer = await fixture.send('POST', `/unsubscribe/${token}`, {
        body: 'x'.repeat(1025),
      });
      expect(answer.status).toBe(413);
      expect(fixture.changed).toBe(false);
    });

    it('never logs an address or a token', async () => {
      const token = fixture.tokens.seal(ADDRESS, 'marketing');
      await fixture.send('GET', `/unsubscribe/${token}`);
      await fixture.postOneClick(token);
      await fixture.postOneClick(token);
      fixture.suppression.failing = true;
      await fixture.postOneClick(fixture.tokens.seal('grace@example.com', 'marketing'));
      const logs = fixture.logs.join('\n');
      expect(logs).toContain('unsubscribe stored (marketing)');
      expect(logs).toContain('answered 503');
      expect(logs).not.toMatch(/ada|grace|example\.com/);
      expect(logs).not.toContain(token.split('.')[1].slice(0, 16));
    });
  });

  describe('rate limit', () => {
    it('answers 429 with Retry-After past the limit, per client address', async () => {
      fixture = await new ListenerFixture().start({ ratePerMinute: 3, trustedProxies: 1 });
      const token = fixture.tokens.seal(ADDRESS, 'marketing');
      const from = (client: string) => ({
        headers: { 'x-forwarded-for': `203.0.113.9, ${client}` },
      });
      for (let i = 0; i < 3; i++) {
        expect(
          (await fixture.send('GET', `/unsubscribe/${token}`, from('198.51.100.1'))).status,
        ).toBe(200);
      }
      const refused = await fixture.send('GET', `/unsubscribe/${token}`, from('198.51.100.1'));
      expect(refused.status).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      // Another client behind the same proxy has its own minute.
      expect(
        (await fixture.send('GET', `/unsubscribe/${token}`, from('198.51.100.2'))).status,
      ).toBe(200);
    });
  });
});

describe(clientAddress.name, () => {
  const request = (forwardedFor?: string) =>
    ({
      socket: { remoteAddress: '10.0.0.5' },
      headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
    }) as unknown as IncomingMessage;

  it('is the peer without trusted proxies, whatever X-Forwarded-For claims', () => {
    expect(clientAddress(request('1.2.3.4'), 0)).toBe('10.0.0.5');
  });

  it('is the address the nearest trusted proxy saw, never one the client wrote further left', () => {
    expect(clientAddress(request('6.6.6.6, 1.2.3.4'), 1)).toBe('1.2.3.4');
    expect(clientAddress(request('6.6.6.6, 1.2.3.4, 172.16.0.1'), 2)).toBe('1.2.3.4');
  });

  it('falls back to the peer when the header has fewer hops than trusted proxies', () => {
    expect(clientAddress(request(), 1)).toBe('10.0.0.5');
  });
});
