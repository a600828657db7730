import { randomBytes } from 'node:crypto';
import { MAX_TOKEN_LENGTH, UnsubscribeTokens } from './unsubscribe-token';

const DAY = 86_400;
const key = (): string => randomBytes(32).toString('base64');

describe(UnsubscribeTokens.name, () => {
  const current = key();
  const previous = key();
  let nowMs = Date.UTC(2026, 10, 1);
  const clock = (): number => nowMs;
  beforeEach(() => {
    nowMs = Date.UTC(2026, 10, 1);
  });

  it('opens what it sealed: the address and category, and no address in the token', () => {
    const tokens = new UnsubscribeTokens([current], 90 * DAY, clock);
    const token = tokens.seal('Ada.Lovelace@example.com', 'marketing');
    expect(token).not.toMatch(/ada|lovelace|example/i);
    expect(token).toMatch(/^[A-Za-z0-9_-]{8}\.[A-Za-z0-9_-]+$/);
    expect(tokens.open(token)).toEqual({
      ok: true,
      claim: {
        address: 'Ada.Lovelace@example.com',
        category: 'marketing',
        expiresAt: nowMs / 1000 + 90 * DAY,
      },
    });
  });

  it('seals each link apart: two tokens for one address differ', () => {
    const tokens = new UnsubscribeTokens([current], 90 * DAY, clock);
    expect(tokens.seal('a@example.com', 'marketing')).not.toBe(
      tokens.seal('a@example.com', 'marketing'),
    );
  });

  it('a token of the longest address stays within the bound it is read with', () => {
    const tokens = new UnsubscribeTokens([current], 90 * DAY, clock);
    const address = `${'a'.repeat(64)}@${'b'.repeat(185)}.com`;
    const token = tokens.seal(address, 'transactional');
    expect(token.length).toBeLessThanOrEqual(MAX_TOKEN_LENGTH);
    expect(tokens.open(token)).toMatchObject({ ok: true, claim: { address } });
  });

  describe('rotation', () => {
    it('opens tokens of the previous key while sealing with the current one', () => {
      const before = new UnsubscribeTokens([previous], 90 * DAY, clock);
      const during = new UnsubscribeTokens([current, previous], 90 * DAY, clock);
      const old = before.seal('a@example.com', 'marketing');
      const fresh = during.seal('b@example.com', 'marketing');
      expect(during.open(old)).toMatchObject({ ok: true, claim: { address: 'a@example.com' } });
      expect(fresh.split('.')[0]).not.toBe(old.split('.')[0]);
      // Once the previous key is dropped, its tokens no longer open; the current one's still do.
      const after = new UnsubscribeTokens([current], 90 * DAY, clock);
      expect(after.open(old)).toEqual({ ok: false, why: 'forged' });
      expect(after.open(fresh)).toMatchObject({ ok: true });
    });
  });

  describe('refusals', () => {
    const tokens = new UnsubscribeTokens([current], 90 * DAY, clock);

    it('refuses a token with one character of its sealed part changed', () => {
      const token = tokens.seal('a@example.com', 'marketing');
      const at = token.length - 20;
      const changed = token.slice(0, at) + (token[at] === 'A' ? 'B' : 'A') + token.slice(at + 1);
      expect(tokens.open(changed)).toEqual({ ok: false, why: 'forged' });
    });

    it('refuses a token sealed under another key with the same key id', () => {
      const token = tokens.seal('a@example.com', 'marketing');
      const stranger = new UnsubscribeTokens([key()], 90 * DAY, clock).seal(
        'a@example.com',
        'marketing',
      );
      const spliced = `${token.split('.')[0]}.${stranger.split('.')[1]}`;
      expect(tokens.open(spliced)).toEqual({ ok: false, why: 'forged' });
    });

    it('refuses a made-up token of the right shape', () => {
      const made = `${'A'.repeat(8)}.${randomBytes(80).toString('base64url')}`;
      expect(tokens.open(made)).toEqual({ ok: false, why: 'forged' });
    });

    it.each([
      ['empty', ''],
      ['no key id', 'abc'],
      ['padding', `${'A'.repeat(8)}.${'A'.repeat(60)}==`],
      ['a path', '../../metrics'],
      ['too short', `${'A'.repeat(8)}.${'A'.repeat(10)}`],
      ['too long', `${'A'.repeat(8)}.${'A'.repeat(5000)}`],
      ['a newline', `${'A'.repeat(8)}.${'A'.repeat(60)}\r\nSet-Cookie: x=1`],
    ])('refuses a malformed token (%s)', (_kind, token) => {
      expect(tokens.open(token)).toEqual({ ok: false, why: 'malformed' });
    });

    it('works until it expires, and is refused as expired after', () => {
      const token = tokens.seal('a@example.com', 'marketing');
      nowMs += 90 * DAY * 1000 - 1000;
      expect(tokens.open(token)).toMatchObject({ ok: true });
      nowMs += 1000;
      expect(tokens.open(token)).toEqual({ ok: false, why: 'expired' });
    });
  });

  it('refuses a key that is not 32 bytes, without echoing it', () => {
    expect(() => new UnsubscribeTokens(['c2hvcnQ='], DAY)).toThrow(
      'an unsubscribe token key must be base64 of 32 bytes',
    );
  });
});
