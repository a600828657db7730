import { canonicalTimeZone } from '../contracts/time-zone';

/**
 * Money and dates as the reader writes them: pure functions over `Intl`, for planners to turn an
 * event's values into attribute text. Nothing here throws for a locale or a time zone: both come
 * from other teams' events, and one that cannot be used falls back (never a dead letter). The
 * `reader*` functions say whether it fell back, for the caller to count; the `format*` ones take
 * whatever they are given and fall back the same way on their own.
 *
 * `Intl` is always given an explicit, supported locale: left to itself it would pick the
 * process's (`LANG`), and a mail would read differently on another machine.
 *
 * The texts hold characters that do not show and must be kept: no-break spaces (`35,00 $`,
 * French `1 234`), and the right-to-left mark Arabic puts before an amount. Attribute values
 * may carry them (only control characters are refused); do not strip them.
 */

/** The locale used when none that can be used is given: the one every runtime formats in. */
export const FALLBACK_LOCALE = 'en';
/** The zone used when neither the event's nor the configured one is known. */
export const FALLBACK_TIME_ZONE = 'UTC';

/** What a reader's preference resolved to, and whether a value was given that could not be used. */
export interface ReaderLocale {
  /** A canonical BCP 47 tag that `Intl` formats in (`de-AT`). */
  locale: string;
  /** True when the event carried a locale that is malformed or that `Intl` does not know. */
  fellBack: boolean;
}

export interface ReaderTimeZone {
  /** A canonical IANA zone name (`Europe/Berlin`). */
  zone: string;
  /** True when the event carried a zone that is malformed or unknown here. */
  fellBack: boolean;
}

/**
 * The locale to format for: the event's tag, canonical (`EN-gb` → `en-GB`), when it is
 * well-formed BCP 47 and `Intl` formats numbers and dates for it or for its language (`de-XX`
 * formats as `de`); else `fallback` (the template's default locale), else {@link FALLBACK_LOCALE}.
 * Absent (undefined, null, empty) is not a fall-back: the default was asked for.
 */
export function readerLocale(tag: unknown, fallback: string = FALLBACK_LOCALE): ReaderLocale {
  const usedFallback = usableLocale(fallback) ?? FALLBACK_LOCALE;
  if (tag === undefined || tag === null || tag === '') {
    return { locale: usedFallback, fellBack: false };
  }
  const locale = typeof tag === 'string' ? usableLocale(tag) : undefined;
  return locale ? { locale, fellBack: false } : { locale: usedFallback, fellBack: true };
}

/**
 * The zone to show dates in: the event's IANA zone, canonical (`europe/berlin` →
 * `Europe/Berlin`), when it is known here; else `fallback` (`TEMPLATE_TIME_ZONE`), else `UTC`.
 * A UTC offset (`+01:00`) is not a zone name and falls back. Absent is not a fall-back.
 */
export function readerTimeZone(zone: unknown, fallback: string): ReaderTimeZone {
  const usedFallback = canonicalTimeZone(fallback) ?? FALLBACK_TIME_ZONE;
  if (zone === undefined || zone === null || zone === '') {
    return { zone: usedFallback, fellBack: false };
  }
  const known = typeof zone === 'string' ? canonicalTimeZone(zone) : undefined;
  return known ? { zone: known, fellBack: false } : { zone: usedFallback, fellBack: true };
}

/** A decimal string as the contracts carry money: no float ever touches it. */
const DECIMAL = /^-?\d+(?:\.(\d+))?$/;

/**
 * `amount` in `currency` as `locale` writes it: `formatMoney('1234.5', 'EUR', 'de-DE')` is
 * `1.234,50 €`. The amount is formatted from its text, so every digit is kept (no float), and
 * never rounded: it shows the currency's usual decimals (two for EUR, none for JPY) or more when
 * the amount has more that are not zero (`'0.125'` EUR is `€0.125`, `'17.5000'` is `€17.50`).
 * A locale that cannot be used formats as {@link FALLBACK_LOCALE}.
 * @throws RangeError when `amount` is not a decimal string or `currency` not a currency code:
 *   values a contract has validated never are.
 */
export function formatMoney(amount: string, currency: string, locale: string): string {
  const match = DECIMAL.exec(amount);
  if (!match) throw new RangeError('formatMoney: the amount is not a decimal string');
  const decimals = (match[1] ?? '').replace(/0+$/, '').length;
  const format = moneyFormat(usableLocale(locale) ?? FALLBACK_LOCALE, currency, decimals);
  // ES2023 (Intl.NumberFormat v3): a string is formatted exactly, as a decimal.
  return format.format(amount as `${number}`);
}

/** What {@link formatDate} shows: the day (`November 22, 2026`), or the day and the time. */
export type DateShown = 'date' | 'date-time';

/**
 * An ISO 8601 date or date-time as `locale` writes it, on the reader's calendar:
 * `2026-11-21T23:30:00Z` in `Asia/Tokyo` is `November 22, 2026` in `en`, `2026年11月22日` in `ja`.
 *
 * - a date-time with `Z` or an offset is an instant, shown in `timeZone`;
 * - a date alone (`2026-11-21`) is that day wherever the reader is;
 * - a date-time without an offset names a wall-clock time of no known zone: shown as written.
 *
 * A form `Date` cannot read the same way everywhere (week and ordinal dates, the basic format)
 * comes back as it was given, and so does a date that does not exist. A locale that cannot be
 * used formats as {@link FALLBACK_LOCALE}, a zone not known here as `UTC`.
 */
export function formatDate(
  iso: string,
  locale: string,
  timeZone: string,
  shown: DateShown = 'date',
): string {
  const parsed = parseIso(iso);
  if (!parsed) return iso;
  const zone = parsed.instant ? (canonicalTimeZone(timeZone) ?? FALLBACK_TIME_ZONE) : 'UTC';
  const withTime = shown === 'date-time' && parsed.hasTime;
  return dateFormat(usableLocale(locale) ?? FALLBACK_LOCALE, zone, withTime).format(parsed.date);
}

/** RFC 3339-like extended form: date, optional time, optional `Z` or offset. */
const ISO_EXTENDED =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?([Zz]|[+-]\d{2}(?::?\d{2})?)?)?$/;

interface ParsedIso {
  date: Date;
  hasTime: boolean;
  /** Whether it names an instant (has an offset), rather than a day or a wall-clock time. */
  instant: boolean;
}

function parseIso(iso: string): ParsedIso | undefined {
  const m = ISO_EXTENDED.exec(iso);
  if (!m) return undefined;
  const [year, month, day, hour = 0, minute = 0, second = 0] = m
    .slice(1, 7)
    .map((v) => (v === undefined ? 0 : Number(v)));
  const ms = Number((m[7] ?? '0').padEnd(3, '0').slice(0, 3));
  const utc = Date.UTC(year, month - 1, day, hour, minute, second, ms);
  const date = new Date(utc);
  // Date.UTC rolls 2026-02-30 over into March: a day that does not exist is not shown as another.
  const exists = date.getUTCFullYear() === year && date.getUTCMonth() === month - 1;
  if (!exists || date.getUTCDate() !== day || hour > 23 || minute > 59) return undefined;
  const offset = m[8];
  const hasTime = m[4] !== undefined;
  if (offset === undefined) return { date, hasTime, instant: false };
  return { date: new Date(utc - offsetMs(offset)), hasTime, instant: true };
}

function offsetMs(offset: string): number {
  if (offset === 'Z' || offset === 'z') return 0;
  const sign = offset.startsWith('-') ? -1 : 1;
  const digits = offset.slice(1).replace(':', '');
  return sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || 0)) * 60_000;
}

/*
 * Building an Intl formatter costs far more than using one, and planners format per event; the
 * caches are bounded because locale tags come from events (any text up to the contract's limit).
 */
const MAX_CACHED = 500;
const MAX_TAG_LENGTH = 255;
const locales = new Map<string, string | null>();
const moneyFormats = new Map<string, Intl.NumberFormat>();
const dateFormats = new Map<string, Intl.DateTimeFormat>();

function cached<K, V>(cache: Map<K, V>, key: K, make: () => V): V {
  if (cache.has(key)) return cache.get(key) as V;
  if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value as K);
  const value = make();
  cache.set(key, value);
  return value;
}

/** The canonical tag when `Intl` formats both numbers and dates for it; else undefined. */
function usableLocale(tag: string): string | undefined {
  // RFC 5646 sets no limit, but no tag a reader could ask for is this long.
  if (tag.length > MAX_TAG_LENGTH) return undefined;
  return (
    cached(locales, tag, () => {
      try {
        const [canonical] = Intl.getCanonicalLocales(tag);
        const options = { localeMatcher: 'lookup' } as const;
        const known =
          Intl.NumberFormat.supportedLocalesOf(canonical, options).length > 0 &&
          Intl.DateTimeFormat.supportedLocalesOf(canonical, options).length > 0;
        return known ? canonical : null;
      } catch {
        // RangeError: not a well-formed BCP 47 tag.
        return null;
      }
    }) ?? undefined
  );
}

function moneyFormat(locale: string, currency: string, decimals: number): Intl.NumberFormat {
  return cached(moneyFormats, `${locale}|${currency}|${decimals}`, () => {
    const usual = new Intl.NumberFormat(locale, { style: 'currency', currency }).resolvedOptions()
      .minimumFractionDigits;
    return new Intl.NumberFormat(locale, {
      style: 'currency',
      currency,
      minimumFractionDigits: usual,
      // Intl allows at most 100; a contract's amounts carry at most 4.
      maximumFractionDigits: Math.min(100, Math.max(usual ?? 0, decimals)),
    });
  });
}

function dateFormat(locale: string, timeZone: string, withTime: boolean): Intl.DateTimeFormat {
  return cached(dateFormats, `${locale}|${timeZone}|${withTime}`, () =>
    withTime
      ? new Intl.DateTimeFormat(locale, { timeZone, dateStyle: 'long', timeStyle: 'short' })
      : new Intl.DateTimeFormat(locale, { timeZone, dateStyle: 'long' }),
  );
}
