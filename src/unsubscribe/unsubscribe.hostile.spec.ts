import { randomBytes } from 'node:crypto';
import { DAY_SECONDS, ListenerFixture } from '../../test/support/unsubscribe-listener';
import { UnsubscribeTokens } from './unsubscribe-token';

/*
 * A hostile-input pass over the public listener: every kind below is sent to a listener holding
 * a real key, and none may change anything (no suppression, no event), be answered 2xx, echo what
 * it sent, or put an address or token into a log; the listener answers a genuine POST after them.
 */

const ADDRESS = 'victim@example.com';

interface HostileKind {
  kind: string;
  /** Resolves with the status: a number, or the status line of a raw exchange. */
  send: (f: ListenerFixture, token: string) => Promise<number | string>;
  expected: number;
}

const flip = (token: string, at: number): string =>
  token.slice(0, at) + (token[at] === 'A' ? 'B' : 'A') + token.slice(at + 1);
const get = (path: string) => async (f: ListenerFixture) => (await f.send('GET', path)).status;
const post = (path: (token: string) => string) => async (f: ListenerFixture, token: string) =>
  (await f.send('POST', path(token), { body: 'List-Unsubscribe=One-Click' })).status;
const raw = (request: (token: string) => string) => (f: ListenerFixture, token: string) =>
  f.raw(request(token));

const KINDS: HostileKind[] = [
  // Oversize
  {
    kind: 'body declared past the bound',
    send: async (f, t) =>
      (await f.send('POST', `/unsubscribe/${t}`, { body: Buffer.alloc(1_000_000, 120) })).status,
    expected: 413,
  },
  {
    kind: 'body streamed chunked past the bound, no length declared',
    send: raw(
      (t) =>
        `POST /unsubscribe/${t} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n` +
        `800\r\n${'x'.repeat(0x800)}\r\n0\r\n\r\n`,
    ),
    expected: 413,
  },
  {
    kind: 'header block past 8 KiB',
    send: raw(
      (t) => `GET /unsubscribe/${t} HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(9000)}\r\n\r\n`,
    ),
    expected: 400,
  },
  {
    kind: 'token past the longest one sealed',
    send: get(`/unsubscribe/A.${'A'.repeat(5000)}`),
    expected: 404,
  },
  // Malformed and forged tokens
  { kind: 'no token', send: post(() => '/unsubscribe/'), expected: 404 },
  { kind: 'token with base64 padding', send: post((t) => `/unsubscribe/${t}==`), expected: 404 },
  {
    kind: 'token without its key id',
    send: post((t) => `/unsubscribe/${t.split('.')[1]}`),
    expected: 400,
  },
  {
    kind: 'random token of the right shape',
    send: post(() => `/unsubscribe/${'A'.repeat(8)}.${randomBytes(90).toString('base64url')}`),
    expected: 403,
  },
  {
    kind: 'one character changed',
    send: post((t) => `/unsubscribe/${flip(t, t.length - 30)}`),
    expected: 403,
  },
  { kind: 'key id changed', send: post((t) => `/unsubscribe/${flip(t, 2)}`), expected: 403 },
  { kind: 'truncated token', send: post((t) => `/unsubscribe/${t.slice(0, -4)}`), expected: 403 },
  {
    kind: 'sealed part of another key under this key id',
    send: post((t) => {
      const other = new UnsubscribeTokens([randomBytes(32).toString('base64')], DAY_SECONDS);
      return `/unsubscribe/${t.split('.')[0]}.${other.seal(ADDRESS, 'marketing').split('.')[1]}`;
    }),
    expected: 403,
  },
  {
    kind: 'expired token under the right key',
    send: async (f) => {
      const sealedLongAgo = new UnsubscribeTokens(
        [f.key],
        60 * DAY_SECONDS,
        () => Date.now() - 61 * DAY_SECONDS * 1000,
      );
      return (await f.postOneClick(sealedLongAgo.seal(ADDRESS, 'marketing'))).status;
    },
    expected: 410,
  },
  // Wrong methods
  {
    kind: 'PUT',
    send: async (f, t) => (await f.send('PUT', `/unsubscribe/${t}`)).status,
    expected: 405,
  },
  {
    kind: 'DELETE',
    send: async (f, t) => (await f.send('DELETE', `/unsubscribe/${t}`)).status,
    expected: 405,
  },
  {
    kind: 'PATCH',
    send: async (f, t) => (await f.send('PATCH', `/unsubscribe/${t}`)).status,
    expected: 405,
  },
  {
    kind: 'OPTIONS',
    send: async (f, t) => (await f.send('OPTIONS', `/unsubscribe/${t}`)).status,
    expected: 405,
  },
  {
    kind: 'TRACE',
    send: async (f, t) => (await f.send('TRACE', `/unsubscribe/${t}`)).status,
    expected: 405,
  },
  // Header injection and request smuggling
  {
    kind: 'CR LF in the request target',
    send: raw((t) => `POST /unsubscribe/${t}\r\nSet-Cookie: a=b HTTP/1.1\r\nHost: x\r\n\r\n`),
    expected: 400,
  },
  {
    kind: 'encoded CR LF and a header in the path',
    send: post((t) => `/unsubscribe/${t}%0d%0aSet-Cookie:%20a=b`),
    expected: 404,
  },
  {
    kind: 'bare LF inside a header value',
    send: raw((t) => `POST /unsubscribe/${t} HTTP/1.1\r\nHost: x\r\nX-A: b\nSet-Cookie: c\r\n\r\n`),
    expected: 400,
  },
  {
    kind: 'Content-Length and Transfer-Encoding together',
    send: raw(
      (t) =>
        `POST /unsubscribe/${t} HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n` +
        `Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
    ),
    expected: 400,
  },
  {
    kind: 'two different Content-Lengths',
    send: raw(
      (t) =>
        `POST /unsubscribe/${t} HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab`,
    ),
    expected: 400,
  },
  // Path tricks
  { kind: 'dot segments to /metrics', send: post(() => '/unsubscribe/../metrics'), expected: 404 },
  { kind: 'the health port’s paths', send: get('/health/ready'), expected: 404 },
  { kind: 'double slash', send: post((t) => `//unsubscribe/${t}`), expected: 404 },
  { kind: 'trailing slash', send: post((t) => `/unsubscribe/${t}/`), expected: 404 },
  { kind: 'upper-case route', send: post((t) => `/UNSUBSCRIBE/${t}`), expected: 404 },
  {
    kind: 'percent-encoded token',
    send: post((t) => `/unsubscribe/%${t.charCodeAt(0).toString(16)}${t.slice(1)}`),
    expected: 404,
  },
  { kind: 'encoded NUL after the token', send: post((t) => `/unsubscribe/${t}%00`), expected: 404 },
  { kind: 'matrix parameter', send: post((t) => `/unsubscribe/${t};a=b`), expected: 404 },
  {
    kind: 'absolute-form request target',
    send: raw(
      (t) =>
        `POST http://evil.example/unsubscribe/${t} HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n`,
    ),
    expected: 404,
  },
  {
    kind: 'bytes that are not UTF-8 in the path',
    send: (f, t) =>
      f.raw(
        Buffer.concat([
          Buffer.from(`GET /unsubscribe/${t}`),
          Buffer.from([0xff, 0xfe]),
          Buffer.from(' HTTP/1.1\r\nHost: x\r\n\r\n'),
        ]),
      ),
    expected: 400,
  },
];

describe('the public listener under hostile input', () => {
  const fixture = new ListenerFixture();
  let token: string;
  beforeAll(async () => {
    await fixture.start();
    token = fixture.tokens.seal(ADDRESS, 'marketing');
  });
  afterAll(() => fixture.stop());

  it('tries 33 kinds', () => {
    expect(KINDS).toHaveLength(33);
    expect(new Set(KINDS.map((k) => k.kind)).size).toBe(KINDS.length);
  });

  it.each(KINDS.map((k) => [k.kind, k] as const))(
    '%s: a 4xx, and nothing changes',
    async (_kind, { send, expected }) => {
      const answered = await send(fixture, token);
      const status = typeof answered === 'number' ? answered : Number(answered.split(' ')[1]);
      expect(status).toBe(expected);
      expect(fixture.changed).toBe(false);
    },
  );

  it('after all of them: nothing was suppressed or queued, nothing logged an address or token, and a genuine POST works', async () => {
    expect(fixture.changed).toBe(false);
    const logs = fixture.logs.join('\n');
    expect(logs).not.toMatch(/victim|example\.com/);
    expect(logs).not.toContain(token.split('.')[1].slice(0, 16));
    expect((await fixture.postOneClick(token)).status).toBe(200);
    expect(fixture.suppression.added).toEqual([{ address: ADDRESS, scope: 'marketing' }]);
  });
});
