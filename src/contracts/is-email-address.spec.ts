import isEmail from 'validator/lib/isEmail';
import { COMMON_ADDRESS, isEmailFormat } from './is-email-address';

/** A small deterministic generator (mulberry32), so that a failure names a reproducible case. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Characters near every edge of both checks: atom characters, the separators, what validator.js
 * refuses in a host name (underscore, full-width letters), non-ASCII it accepts, quotes, spaces.
 */
const EDGE = [
  ...'aZ09.-_@+!#$%&\'*/=?^`{|}~"()<>[]\\,;: ',
  '\u00e9',
  '\u00a1',
  '\uff41',
  '\u200b',
  'xn--',
];

function pick<T>(next: () => number, items: readonly T[]): T {
  return items[Math.floor(next() * items.length)];
}

function text(next: () => number, alphabet: readonly string[], min: number, max: number): string {
  let out = '';
  const length = min + Math.floor(next() * (max - min + 1));
  for (let i = 0; i < length; i++) out += pick(next, alphabet);
  return out;
}

/** Address-shaped strings (so that many pass) with edge characters and lengths mixed in. */
function candidate(next: () => number): string {
  const plain = [...'abcxyzABC0189'];
  const part = (max: number) => text(next, next() < 0.8 ? plain : [...plain, ...EDGE], 1, max);
  const local = Array.from({ length: 1 + Math.floor(next() * 3) }, () =>
    part(next() < 0.1 ? 70 : 8),
  );
  const labels = Array.from({ length: 1 + Math.floor(next() * 3) }, () =>
    part(next() < 0.1 ? 70 : 10),
  );
  const tld = next() < 0.8 ? text(next, [...'comorgZ'], 2, 6) : part(6);
  const at = next() < 0.9 ? '@' : pick(next, ['', '@@', '@a@']);
  const address = `${local.join(next() < 0.9 ? '.' : '..')}${at}${[...labels, tld].join('.')}`;
  return next() < 0.05 ? address.padStart(250 + Math.floor(next() * 10), 'a') : address;
}

describe('isEmailFormat', () => {
  it('answers as validator.js isEmail does, on a generated corpus of address-like strings', () => {
    const next = random(20261126);
    let takenByTheCommonShape = 0;
    let accepted = 0;
    for (let i = 0; i < 60_000; i++) {
      const value = candidate(next);
      const expected = isEmail(value);
      if (isEmailFormat(value) !== expected) {
        throw new Error(`isEmailFormat(${JSON.stringify(value)}) !== isEmail: ${expected}`);
      }
      if (expected) accepted += 1;
      if (COMMON_ADDRESS.test(value)) takenByTheCommonShape += 1;
    }
    // The corpus reaches both answers and both paths, or it proves nothing.
    expect(accepted).toBeGreaterThan(10_000);
    expect(takenByTheCommonShape).toBeGreaterThan(10_000);
    expect(60_000 - accepted).toBeGreaterThan(10_000);
  });

  it('is decided by the common shape for an ordinary address, without the general path', () => {
    expect(COMMON_ADDRESS.test('ada.lovelace.42@example.com')).toBe(true);
    expect(COMMON_ADDRESS.test("o'brien+news@mail.example.co.uk")).toBe(true);
  });

  it.each([
    ['a'.repeat(64) + '@example.com', true],
    ['a'.repeat(65) + '@example.com', false],
    ['a@' + 'b'.repeat(63) + '.com', true],
    ['a@' + 'b'.repeat(64) + '.com', false],
    ['a@' + 'b.'.repeat(124) + 'com', true],
    ['a@' + 'b.'.repeat(125) + 'com', false],
    ['a@b.c', false],
    ['a@b.c1', false],
    ['a@b.123', false],
    ['a@-b.com', false],
    ['a@b-.com', false],
    ['a@b_c.com', false],
    ['.a@b.com', false],
    ['a.@b.com', false],
    ['a..b@b.com', false],
    ['a@b..com', false],
    ['a@b.com.', false],
    ['a b@b.com', false],
    ['"a b"@b.com', true],
    ['\u00e9l\u00e8ve@\u00e9cole.fr', true],
    ['a@xn--bcher-kva.xn--p1ai', true],
    ['a@[127.0.0.1]', false],
  ])('%s: %s, as isEmail says', (value, valid) => {
    expect(isEmail(value)).toBe(valid);
    expect(isEmailFormat(value)).toBe(valid);
  });
});
