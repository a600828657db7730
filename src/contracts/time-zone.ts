/** The longest IANA zone name has 32 characters (`America/Argentina/ComodRivadavia`). */
export const TIME_ZONE_MAX_LENGTH = 64;

/**
 * Asking `Intl` costs tens of microseconds a name, and templates ask per event; bounded, as the
 * names come from events.
 */
const MAX_CACHED = 500;
const known = new Map<string, string | null>();

/**
 * The canonical name of an IANA time zone (`europe/berlin` → `Europe/Berlin`, the link
 * `US/Pacific` → `America/Los_Angeles`, `Etc/UTC` → `UTC`), or undefined when the runtime's
 * time zone data does not know it. A UTC offset (`+01:00`) is not a zone name: undefined.
 *
 * Asks `Intl.DateTimeFormat` rather than `Intl.supportedValuesOf('timeZone')`, which lists
 * canonical names only: `UTC` and every link (`US/Pacific`) are missing from it.
 */
export function canonicalTimeZone(name: string): string | undefined {
  if (name.length === 0 || name.length > TIME_ZONE_MAX_LENGTH || /^[+-]/.test(name)) {
    return undefined;
  }
  let canonical = known.get(name);
  if (canonical === undefined) {
    canonical = resolve(name);
    if (known.size >= MAX_CACHED) known.delete(known.keys().next().value as string);
    known.set(name, canonical);
  }
  return canonical ?? undefined;
}

function resolve(name: string): string | null {
  try {
    return new Intl.DateTimeFormat('en', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}
