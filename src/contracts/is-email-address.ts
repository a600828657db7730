import { IsEmail, MaxLength, ValidateBy, type ValidationOptions } from 'class-validator';
import isEmail from 'validator/lib/isEmail';
import { IsPlainText } from './is-plain-text';

/**
 * The shape nearly every address an event carries has: dot-separated parts of ASCII letters,
 * digits and RFC 5322's other atom characters, `@`, then labels of letters, digits and inner
 * hyphens (at most 63 characters each) ending in a top-level domain of letters. Within the
 * lengths {@link isEmailFormat} checks beside it, everything it matches is an address that
 * validator.js's `isEmail` accepts with its default options (`is-email-address.spec.ts` holds
 * it to that on a generated corpus), so trying it first changes no answer; it only spares
 * `isEmail`'s general path (an options merge, `encodeURI` and a split per part) for the common
 * case.
 */
export const COMMON_ADDRESS =
  /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/;

/**
 * `@IsEmail()`'s check, as the compiled validators run it: validator.js's `isEmail` with its
 * default options, answered without it for an address of the {@link COMMON_ADDRESS} shape that
 * is within its length limits (254 in all, 64 before the `@`).
 */
export function isEmailFormat(value: string): boolean {
  if (value.length <= 254 && value.indexOf('@') <= 64 && COMMON_ADDRESS.test(value)) return true;
  return isEmail(value);
}

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
