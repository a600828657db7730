/** The language of a template's default copy (its files without a locale in their name). */
export const DEFAULT_LOCALE = 'en';

/**
 * Why an event's locale did not choose a variant: `malformed` (not a BCP 47 tag) or `unknown`
 * (a tag for which neither it nor any shorter form has a variant). Both get the default copy.
 * A bounded set: it is a metric label, where the tag itself never goes.
 */
export type LocaleFallback = 'malformed' | 'unknown';

/** The locale whose copy an event gets, and why, when the event asked for another. */
export interface ResolvedLocale {
  locale: string;
  fallback?: LocaleFallback;
}

/** The tag in its canonical BCP 47 form (`zh-hant-tw` → `zh-Hant-TW`), or undefined if malformed. */
export function canonicalLocale(tag: string): string | undefined {
  try {
    return Intl.getCanonicalLocales(tag)[0];
  } catch {
    return undefined;
  }
}

/**
 * The tags to look for, most specific first: the canonical tag without its extensions, then
 * with one subtag fewer each time (`zh-Hant-TW` → `zh-Hant` → `zh`; `de-AT` → `de`), as the
 * lookup of RFC 4647 §3.4 does. Undefined for a malformed tag.
 */
export function fallbackChain(tag: string): string[] | undefined {
  const canonical = canonicalLocale(tag);
  if (canonical === undefined) return undefined;
  const subtags = new Intl.Locale(canonical).baseName.split('-');
  return subtags.map((_, i) => subtags.slice(0, subtags.length - i).join('-'));
}

/**
 * Which of `available` (canonical tags, the default's among them) serves `requested`: the first
 * of its fallback chain that is available, else the default. No locale asked is the default, not
 * a fallback.
 */
export function resolveLocale(
  requested: string | undefined,
  available: ReadonlySet<string>,
): ResolvedLocale {
  if (requested === undefined) return { locale: DEFAULT_LOCALE };
  const chain = fallbackChain(requested);
  if (chain === undefined) return { locale: DEFAULT_LOCALE, fallback: 'malformed' };
  const found = chain.find((tag) => available.has(tag));
  return found === undefined ? { locale: DEFAULT_LOCALE, fallback: 'unknown' } : { locale: found };
}
