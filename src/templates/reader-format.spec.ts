import {
  FALLBACK_LOCALE,
  formatDate,
  formatMoney,
  readerLocale,
  readerTimeZone,
} from './reader-format';

/*
 * Expected texts are what Node 24's ICU writes; spaces and marks that do not show are named.
 */
const NBSP = '\u00a0';
/** Narrow no-break space: French groups thousands with it. */
const NNBSP = '\u202f';
/** Right-to-left mark: Arabic puts it before an amount. */
const RLM = '\u200f';

describe(formatMoney.name, () => {
  it.each([
    ['de', 'EUR', '1234.5', `1.234,50${NBSP}€`],
    ['de', 'JPY', '1234', `1.234${NBSP}¥`],
    ['de', 'USD', '35', `35,00${NBSP}$`],
    ['en', 'EUR', '1234.5', '€1,234.50'],
    ['en', 'JPY', '1234', '¥1,234'],
    ['en', 'USD', '35.00', '$35.00'],
    ['ar', 'EUR', '1234.5', `${RLM}1,234.50${NBSP}€`],
    ['ar', 'JPY', '1234', `${RLM}1,234${NBSP}JP¥`],
    ['ar', 'USD', '35', `${RLM}35.00${NBSP}US$`],
    ['ja', 'EUR', '1234.5', '€1,234.50'],
    ['ja', 'JPY', '1234', '￥1,234'],
    ['ja', 'USD', '35', '$35.00'],
    ['fr', 'EUR', '1234.5', `1${NNBSP}234,50${NBSP}€`],
    ['fr', 'JPY', '1234', `1${NNBSP}234${NBSP}JPY`],
    ['fr', 'USD', '35', `35,00${NBSP}$US`],
  ])('%s writes %s %s as %j', (locale, currency, amount, expected) => {
    expect(formatMoney(amount, currency, locale)).toBe(expected);
  });

  it('keeps every digit of an amount beyond what a float holds', () => {
    expect(formatMoney('12345678901234.56', 'EUR', 'en')).toBe('€12,345,678,901,234.56');
    expect(formatMoney('999999999999.9999', 'USD', 'de')).toBe(`999.999.999.999,9999${NBSP}$`);
    expect(formatMoney('0.10', 'EUR', 'en')).toBe('€0.10');
  });

  it('never rounds: more decimals than the currency’s usual are shown, trailing zeros are not', () => {
    expect(formatMoney('0.125', 'EUR', 'en')).toBe('€0.125');
    expect(formatMoney('17.5000', 'EUR', 'en')).toBe('€17.50');
    expect(formatMoney('1234.5', 'JPY', 'en')).toBe('¥1,234.5');
    expect(formatMoney('1234.000', 'JPY', 'ja')).toBe('￥1,234');
  });

  it('writes in the fall-back locale for a tag it cannot use, without throwing', () => {
    for (const tag of ['xx-!!', 'xx', '', 'en_US_POSIX!']) {
      expect(formatMoney('35.00', 'USD', tag)).toBe(formatMoney('35.00', 'USD', FALLBACK_LOCALE));
    }
    expect(formatMoney('35.00', 'USD', 'de-XX')).toBe(formatMoney('35.00', 'USD', 'de'));
  });

  it('refuses what is not a decimal string or a currency code', () => {
    for (const amount of ['1e3', '12,50', ' 1', 'NaN', '', '.5']) {
      expect(() => formatMoney(amount, 'EUR', 'en')).toThrow(RangeError);
    }
    expect(() => formatMoney('1.00', 'EURO', 'en')).toThrow(RangeError);
  });
});

describe(formatDate.name, () => {
  const lateEvening = '2026-11-21T23:30:00Z';

  it('shows an instant on the reader’s day: across midnight in Tokyo, not in New York', () => {
    expect(formatDate(lateEvening, 'en', 'Asia/Tokyo')).toBe('November 22, 2026');
    expect(formatDate(lateEvening, 'en', 'America/New_York')).toBe('November 21, 2026');
    expect(formatDate(lateEvening, 'ja', 'Asia/Tokyo')).toBe('2026年11月22日');
    expect(formatDate(lateEvening, 'de', 'Asia/Tokyo')).toBe('22. November 2026');
    expect(formatDate(lateEvening, 'fr', 'America/New_York')).toBe('21 novembre 2026');
    expect(formatDate(lateEvening, 'ar', 'Asia/Tokyo')).toBe('22 نوفمبر 2026');
  });

  it('reads an offset as the instant it names', () => {
    expect(formatDate('2026-11-22T08:30:00+09:00', 'en', 'UTC')).toBe('November 21, 2026');
    expect(formatDate('2026-11-21T23:30:00-0500', 'en', 'UTC')).toBe('November 22, 2026');
  });

  it('shows the time too when asked, in the reader’s zone', () => {
    expect(formatDate(lateEvening, 'en', 'Asia/Tokyo', 'date-time')).toBe(
      'November 22, 2026 at 8:30 AM',
    );
    expect(formatDate(lateEvening, 'de', 'Europe/Berlin', 'date-time')).toBe(
      '22. November 2026 um 00:30',
    );
  });

  it('shows a date alone, or a time without an offset, as written, wherever the reader is', () => {
    expect(formatDate('2026-11-21', 'en', 'Pacific/Kiritimati')).toBe('November 21, 2026');
    expect(formatDate('2026-11-21T23:30:00', 'en', 'Asia/Tokyo', 'date-time')).toBe(
      'November 21, 2026 at 11:30 PM',
    );
    expect(formatDate('2026-11-21', 'en', 'Asia/Tokyo', 'date-time')).toBe('November 21, 2026');
  });

  it('falls back to UTC for a zone it does not know, and to the fall-back locale', () => {
    expect(formatDate(lateEvening, 'en', 'Mars/Olympus_Mons')).toBe('November 21, 2026');
    expect(formatDate(lateEvening, 'xx-!!', 'Asia/Tokyo')).toBe('November 22, 2026');
  });

  it('gives back as it was a form it does not read the same way everywhere, or no real day', () => {
    for (const iso of ['2026-W47-6', '2026-325', '20261121T233000Z', '2026-02-30', 'soon']) {
      expect(formatDate(iso, 'en', 'UTC')).toBe(iso);
    }
  });
});

describe(readerLocale.name, () => {
  it('gives the event’s tag, canonical, when Intl formats for it or its language', () => {
    expect(readerLocale('EN-gb')).toEqual({ locale: 'en-GB', fellBack: false });
    expect(readerLocale('de-XX', 'fr')).toEqual({ locale: 'de-XX', fellBack: false });
    expect(readerLocale('ar-EG', 'en')).toEqual({ locale: 'ar-EG', fellBack: false });
  });

  it('falls back, saying so, for a malformed or unknown tag or a value that is no tag', () => {
    for (const tag of ['xx-!!', 'xx', 'en_GB!', 42, {}, 'a'.repeat(36), `en-${'x'.repeat(300)}`]) {
      expect(readerLocale(tag, 'de-AT')).toEqual({ locale: 'de-AT', fellBack: true });
    }
  });

  it('gives the fall-back without counting it when the event names no locale', () => {
    for (const tag of [undefined, null, '']) {
      expect(readerLocale(tag, 'fr')).toEqual({ locale: 'fr', fellBack: false });
    }
  });

  it('uses en when the fall-back itself cannot be used', () => {
    expect(readerLocale(undefined, 'xx-!!')).toEqual({ locale: 'en', fellBack: false });
    expect(readerLocale('zz', 'zz')).toEqual({ locale: 'en', fellBack: true });
  });
});

describe(readerTimeZone.name, () => {
  it('gives the event’s IANA zone, canonical', () => {
    expect(readerTimeZone('Europe/Berlin', 'UTC')).toEqual({
      zone: 'Europe/Berlin',
      fellBack: false,
    });
    expect(readerTimeZone('asia/tokyo', 'UTC')).toEqual({ zone: 'Asia/Tokyo', fellBack: false });
    expect(readerTimeZone('Etc/UTC', 'Europe/Berlin')).toEqual({ zone: 'UTC', fellBack: false });
  });

  it('falls back to the configured zone, saying so, for one it does not know', () => {
    for (const zone of ['Mars/Olympus_Mons', '+01:00', 'Europe/Berlin ', 7, 'x'.repeat(65)]) {
      expect(readerTimeZone(zone, 'Europe/Paris')).toEqual({
        zone: 'Europe/Paris',
        fellBack: true,
      });
    }
  });

  it('gives the configured zone without counting it when the event names none', () => {
    expect(readerTimeZone(undefined, 'Asia/Tokyo')).toEqual({
      zone: 'Asia/Tokyo',
      fellBack: false,
    });
    expect(readerTimeZone(null, 'Asia/Tokyo').fellBack).toBe(false);
  });

  it('uses UTC when the configured zone is not known either', () => {
    expect(readerTimeZone('Nowhere/Town', 'Nowhere/Else')).toEqual({
      zone: 'UTC',
      fellBack: true,
    });
  });
});
