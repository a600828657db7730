import { IsEmail, MaxLength, ValidateBy, type ValidationOptions } from 'class-validator';
import { IsPlainText } from './is-plain-text';

/**
 * Any Unicode space, leading, trailing or inside: never silently trimmed, refused. Nor the
 * zero-width joiners that names may hold: in an address nothing may be invisible.
 */
const WHITESPACE_OR_JOINER = /[\s\u200C\u200D]/;

/** `hasNoWhitespace` in JSON Schema keywords: `not`, as `pattern` already holds plain text. */
export const NO_WHITESPACE_SCHEMA = { not: { pattern: WHITESPACE_OR_JOINER.source } } as const;

/**
 * An email address exactly as it will be sent: a valid address, at most 320 characters, with no
 * whitespace and no invisible character (which would make two different addresses look alike).
 * It is not lower-cased or trimmed: input is validated, not repaired; duplicates are found
 * case-insensitively by {@link HasUniqueEmails}.
 */
export function IsEmailAddress(validationOptions?: ValidationOptions): PropertyDecorator {
  const decorators = [
    IsEmail({}, validationOptions),
    MaxLength(320, validationOptions),
    IsPlainText({}, validationOptions),
    ValidateBy(
      {
        name: 'hasNoWhitespace',
        validator: {
          validate: (value: unknown) =>
            typeof value !== 'string' || !WHITESPACE_OR_JOINER.test(value),
          defaultMessage: () => '$property must not contain whitespace or joiners',
        },
      },
      validationOptions,
    ),
  ];
  return (target, key) => decorators.forEach((decorate) => decorate(target, key));
}

/**
 * A list of objects with an `email` where no address appears twice, ignoring case: the vendor
 * request is built from the list, and one person must not be mailed or listed twice by one
 * command.
 */
export function HasUniqueEmails(validationOptions?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'uniqueAddresses',
      validator: {
        validate: (value: unknown) => !Array.isArray(value) || hasUniqueEmails(value),
        defaultMessage: () => '$property has duplicate addresses',
      },
    },
    validationOptions,
  );
}

/** Whether no two items' `email` strings are equal ignoring case; other items are skipped. */
export function hasUniqueEmails(items: readonly unknown[]): boolean {
  const seen = new Set<string>();
  for (const item of items) {
    const email = (item as { email?: unknown } | null)?.email;
    if (typeof email !== 'string') continue;
    const folded = email.toLowerCase();
    if (seen.has(folded)) return false;
    seen.add(folded);
  }
  return true;
}
