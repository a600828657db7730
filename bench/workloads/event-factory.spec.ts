import { loadConfig } from '../../src/config/config.loader';
import type { UserSignedUpV1 } from '../../src/contracts/user-signed-up.v1';
import { eventOf } from '../../src/inbound/event.parser';
import { WelcomePlanner } from '../../src/templates/welcome/welcome.planner';
import {
  DEFAULT_READER_LOCALE,
  localeShares,
  localeSignUp,
  OTHER_READER_LOCALES,
  readerLocale,
  USER_SIGNED_UP,
  type LocaleMix,
} from './event-factory';

/** How many of the first `count` sign-ups of `mix` each locale has. */
function tally(mix: LocaleMix, count: number): Record<string, number> {
  const counts: Record<string, number> = {};
  for (let n = 0; n < count; n++) {
    const locale = readerLocale(mix, n);
    counts[locale] = (counts[locale] ?? 0) + 1;
  }
  return counts;
}

describe('the locales workloads', () => {
  it('gives every single-locale sign-up the default language', () => {
    expect(tally('single-locale', 1_000)).toEqual({ [DEFAULT_READER_LOCALE]: 1_000 });
  });

  it('gives 70 % of mixed-locale sign-ups the default language and 7.5 % each of four others', () => {
    expect(tally('mixed-locale', 100_000)).toEqual({
      'en-GB': 70_000,
      'de-DE': 7_500,
      'fr-FR': 7_500,
      'es-ES': 7_500,
      'ja-JP': 7_500,
    });
    // Every 10 in a row: 7 of the default, whatever the count, so a capped run keeps the mix.
    for (const start of [0, 10, 1_230]) {
      const ten = Array.from({ length: 10 }, (_, i) => readerLocale('mixed-locale', start + i));
      expect(ten.filter((l) => l === DEFAULT_READER_LOCALE)).toHaveLength(7);
    }
    // Within one event of the exact share over a count that is no multiple of 40.
    const odd = tally('mixed-locale', 1_234);
    for (const locale of OTHER_READER_LOCALES) {
      expect(Math.abs(odd[locale] - 1_234 * 0.075)).toBeLessThanOrEqual(1);
    }
  });

  it('says what share of each mix each locale has', () => {
    expect(localeShares('single-locale')).toEqual([{ locale: 'en-GB', share: 1 }]);
    expect(localeShares('mixed-locale')).toEqual([
      { locale: 'en-GB', share: 0.7 },
      { locale: 'de-DE', share: 0.075 },
      { locale: 'fr-FR', share: 0.075 },
      { locale: 'es-ES', share: 0.075 },
      { locale: 'ja-JP', share: 0.075 },
    ]);
  });

  it('is deterministic: the same n, the same locale and the same reader', () => {
    const a = JSON.parse(localeSignUp('mixed-locale')(47).value) as UserSignedUpV1;
    const b = JSON.parse(localeSignUp('mixed-locale')(47).value) as UserSignedUpV1;
    expect(a.data).toEqual(b.data);
  });

  it('makes the two workloads differ in the locale alone', () => {
    for (let n = 0; n < 40; n++) {
      const single = JSON.parse(localeSignUp('single-locale')(n).value) as UserSignedUpV1;
      const mixed = JSON.parse(localeSignUp('mixed-locale')(n).value) as UserSignedUpV1;
      expect({ ...mixed.data, locale: undefined }).toEqual({ ...single.data, locale: undefined });
      expect(mixed.data.locale).toBe(readerLocale('mixed-locale', n));
    }
  });

  it("sends the sign-ups to one batch key, or five, each a copy of the reader's language", () => {
    const config = loadConfig({
      MAILBRIDGE_MODE: 'local',
      SENDER_FROM_EMAIL: 'bench@mailbridge.local',
    });
    const welcome = new WelcomePlanner(config);
    const typesByTopic = new Map([['signups', new Set([USER_SIGNED_UP])]]);
    const keysOf = (mix: LocaleMix) => {
      const keys = new Set<string>();
      for (let n = 0; n < 40; n++) {
        const { key, value } = localeSignUp(mix)(n);
        // Parsed as the service parses it: a locale the contract did not accept would be dropped
        // (the field is lenient) and the reader would silently get the default copy.
        const event = eventOf(
          {
            topic: 'signups',
            partition: 0,
            offset: String(n),
            timestamp: '0',
            timestampType: 'CreateTime',
            key: Buffer.from(key),
            value: Buffer.from(value),
            headers: {},
          },
          { maxBytes: config.consumer.maxEventBytes, typesByTopic },
        ) as UserSignedUpV1;
        const action = welcome.plan(event);
        expect(action.localeFallback).toBeUndefined();
        keys.add(action.batchKey);
      }
      return [...keys].sort();
    };
    expect(keysOf('single-locale')).toEqual(['welcome:en']);
    expect(keysOf('mixed-locale')).toEqual([
      'welcome:de',
      'welcome:en',
      'welcome:es',
      'welcome:fr',
      'welcome:ja',
    ]);
  });
});
