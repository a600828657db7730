import { ValidateBy, type ValidationOptions } from 'class-validator';
import { plainTextPattern, plainTextProblem } from './is-plain-text';

export interface StringMapLimits {
  maxEntries: number;
  /** In characters (Unicode code points), as `@MaxLength` and JSON Schema's `maxLength` count. */
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
      // For the JSON Schema generator (json-schema.ts), which reads rules from the metadata.
      constraints: [limits],
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

/** The same rule in JSON Schema keywords, for an object-typed property. */
export function stringMapSchema(limits: StringMapLimits): Record<string, unknown> {
  const pattern = plainTextPattern();
  return {
    maxProperties: limits.maxEntries,
    propertyNames: { minLength: 1, maxLength: limits.maxKeyLength, pattern },
    additionalProperties: { type: 'string', maxLength: limits.maxValueLength, pattern },
  };
}

function isStringMap(value: unknown, limits: StringMapLimits): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const entries = Object.entries(value);
  return (
    entries.length <= limits.maxEntries &&
    entries.every(
      ([k, v]) =>
        k.length > 0 &&
        codePoints(k) <= limits.maxKeyLength &&
        plainTextProblem(k) === undefined &&
        typeof v === 'string' &&
        codePoints(v) <= limits.maxValueLength &&
        plainTextProblem(v) === undefined,
    )
  );
}

function codePoints(text: string): number {
  return [...text].length;
}
