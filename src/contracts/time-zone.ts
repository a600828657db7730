/** The longest IANA zone name has 32 characters (`America/Argentina/ComodRivadavia`). */
export const TIME_ZONE_MAX_LENGTH = 64;

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
  try {
    return new Intl.DateTimeFormat('en', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}
