import { ValidateBy, type ValidationOptions } from 'class-validator';
import { plainTextProblem } from './is-plain-text';

export interface StringMapLimits {
  maxEntries: number;
  maxKeyLength: number;
  maxValueLength: number;
}

/**
 * An object whose values are all strings (the vendor's recipient attributes, custom headers).
 * Names and values are plain text and bounded: both end up in mail headers or merged into mail.
 */
export function IsStringMap(
  limits: StringMapLimits,
  options?: ValidationOptions,
): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isStringMap',
      validator: {
        validate: (value: unknown) => isStringMap(value, limits),
        defaultMessage: () =>
          `$property must map at most ${limits.maxEntries} plain-text names ` +
          `(up to ${limits.maxKeyLength} characters) to plain-text strings ` +
          `(up to ${limits.maxValueLength} characters)`,
      },
    },
    options,
  );
}

function isStringMap(value: unknown, limits: StringMapLimits): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const entries = Object.entries(value);
  return (
    entries.length <= limits.maxEntries &&
    entries.every(
      ([k, v]) =>
        k.length > 0 &&
        k.length <= limits.maxKeyLength &&
        plainTextProblem(k) === undefined &&
        typeof v === 'string' &&
        v.length <= limits.maxValueLength &&
        plainTextProblem(v) === undefined,
    )
  );
}
