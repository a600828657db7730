import { ValidateBy, type ValidationOptions } from 'class-validator';

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-](\d{2}):(\d{2}))$/i;

/**
 * An RFC 3339 timestamp (`2026-11-21T10:00:00Z`, `…T10:00:00.123+02:00`), as CloudEvents `time`
 * requires: a full date, a time with seconds and an offset. ISO 8601 alone allows far more
 * (`2026-11-21`, `2026-W47`), which a subscriber's parser may read differently.
 */
export function isRfc3339(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  const m = RFC3339.exec(value);
  if (!m) return false;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
  const date = new Date(Date.UTC(year, month - 1, day));
  const realDay = date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
  const offsetOk = m[9] === undefined || (Number(m[9]) <= 23 && Number(m[10]) <= 59);
  // Second 60 is a leap second, which RFC 3339 allows.
  return realDay && hour <= 23 && minute <= 59 && second <= 60 && offsetOk;
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
