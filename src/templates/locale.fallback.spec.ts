import { canonicalLocale, fallbackChain, resolveLocale } from './locale.fallback';

describe('locale fallback', () => {
  it('writes a tag in its canonical BCP 47 form, and refuses what is no tag', () => {
    expect(canonicalLocale('zh-hant-tw')).toBe('zh-Hant-TW');
    expect(canonicalLocale('DE-at')).toBe('de-AT');
    expect(canonicalLocale('iw')).toBe('he');
    for (const malformed of ['de_AT', '', 'not a tag', '123', 'en-']) {
      expect(canonicalLocale(malformed)).toBeUndefined();
    }
  });

  it('looks from the most specific tag to its language, extensions left out', () => {
    expect(fallbackChain('zh-Hant-TW')).toEqual(['zh-Hant-TW', 'zh-Hant', 'zh']);
    expect(fallbackChain('de-at')).toEqual(['de-AT', 'de']);
    expect(fallbackChain('de-DE-u-co-phonebk')).toEqual(['de-DE', 'de']);
    expect(fallbackChain('ar')).toEqual(['ar']);
    expect(fallbackChain('de_AT')).toBeUndefined();
  });

  const available = new Set(['en', 'de', 'zh-Hant', 'zh']);

  it.each([
    ['de', 'de'],
    ['de-AT', 'de'],
    ['DE-ch', 'de'],
    ['zh-Hant-TW', 'zh-Hant'],
    ['zh-Hans-CN', 'zh'],
    ['en-GB', 'en'],
  ])('gives %s the copy of %s', (requested, locale) => {
    expect(resolveLocale(requested, available)).toEqual({ locale });
  });

  it('gives the default copy to an event without a locale, as no fallback', () => {
    expect(resolveLocale(undefined, available)).toEqual({ locale: 'en' });
  });

  it('gives the default copy to an unknown or malformed locale, saying which', () => {
    expect(resolveLocale('xx', available)).toEqual({ locale: 'en', fallback: 'unknown' });
    expect(resolveLocale('fr-CA', available)).toEqual({ locale: 'en', fallback: 'unknown' });
    expect(resolveLocale('de_AT', available)).toEqual({ locale: 'en', fallback: 'malformed' });
    expect(resolveLocale('', available)).toEqual({ locale: 'en', fallback: 'malformed' });
  });
});
