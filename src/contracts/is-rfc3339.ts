import { ValidateBy, type ValidationOptions } from 'class-validator';

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-](\d{2}):(\d{2}))$/i;

/**
 * An RFC 3339 timestamp (`2026-11-21T10:00:00Z`, `…T10:00:00.123+02:00`), as CloudEvents `time`
 * requires: a full date, a time with seconds and an offset. ISO 8601 alone allows far more
 * (`2026-11-21`, `2026-W47`), which a subscriber's parser may read differently. Every event's
 * `time` passes here, so the date is checked by arithmetic (RFC 3339's own leap-year rule, its
 * Appendix C), not by building a `Date`.
 */
export function isRfc3339(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  const m = RFC3339.exec(value);
  if (!m) return false;
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(Number(m[1]), month)) return false;
  // Second 60 is a leap second, which RFC 3339 allows.
  if (Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[6]) > 60) return false;
  return m[9] === undefined || (Number(m[9]) <= 23 && Number(m[10]) <= 59);
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

export function IsRfc3339(validationOptions?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isRfc3339',
      validator: {
        validate: isRfc3339,
        defaultMessage: () => '$property must be an RFC 3339 timestamp',
      },
    },
    validationOptions,
  );
}
