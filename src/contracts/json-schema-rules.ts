import Ajv, { type Options } from 'ajv';
import { isDeepStrictEqual } from 'node:util';
import isISO8601 from 'validator/lib/isISO8601';
import { CurrencyCodes } from 'validator/lib/isISO4217';
import { hasUniqueEmails, isEmailFormat, NO_WHITESPACE_SCHEMA } from './is-email-address';
import { plainTextPattern, type PlainTextOptions } from './is-plain-text';
import { isRfc3339 } from './is-rfc3339';
import { stringMapSchema, type StringMapLimits } from './is-string-map';

export type JsonType = 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'object';

/** What one class-validator rule of one property becomes in JSON Schema. */
export interface RuleSchema {
  /** The type the rule demands (class-validator refuses every other); none if others pass. */
  type?: JsonType;
  /** The keywords that say the rest of the rule. */
  keywords?: Record<string, unknown>;
}

/**
 * The one keyword beyond JSON Schema: that no two items of an array have the same `email`,
 * ignoring case (`@HasUniqueEmails`), which no standard keyword can say. The service's schemas
 * use it; the published ones leave it out and say it in a description ({@link BEYOND_STANDARD}).
 */
export const UNIQUE_EMAILS_KEYWORD = 'x-uniqueEmailsIgnoringCase';

/**
 * An annotation, not a rule: the property is lenient (`@Lenient()`), so the service removes a
 * value that breaks the property's schema and keeps the event. The published schemas leave it
 * out and say it in the property's description ({@link BEYOND_STANDARD}).
 */
export const LENIENT_KEYWORD = 'x-lenient';

/**
 * ISO 8601 as validator.js's `isISO8601` reads its syntax (its `iso8601` expression, verbatim):
 * calendar, week and ordinal dates, with an optional time and offset. `isISO8601`'s `strict`
 * also refuses a date that does not exist, which the format `iso8601` adds in the service's
 * schemas (see {@link BEYOND_STANDARD}).
 */
export const ISO8601_PATTERN = String.raw`^([\+-]?\d{4}(?!\d{2}\b))((-?)((0[1-9]|1[0-2])(\3([12]\d|0[1-9]|3[01]))?|W([0-4]\d|5[0-3])(-?[1-7])?|(00[1-9]|0[1-9]\d|[12]\d{2}|3([0-5]\d|6[1-6])))([T\s]((([01]\d|2[0-3])((:?)[0-5]\d)?|24:?00)([\.,]\d+(?!:))?)?(\17[0-5]\d([\.,]\d+)?)?([zZ]|([\+-])([01]\d|2[0-3]):?([0-5]\d)?)?)?)?$`;

/** The formats JSON Schema draft-07 defines: a validator may know these and no others. */
export const STANDARD_FORMATS = [
  'date-time',
  'date',
  'time',
  'email',
  'idn-email',
  'hostname',
  'idn-hostname',
  'ipv4',
  'ipv6',
  'uri',
  'uri-reference',
  'iri',
  'iri-reference',
  'uri-template',
  'json-pointer',
  'relative-json-pointer',
  'regex',
] as const;

/**
 * What the service's schemas check beyond standard JSON Schema, by keyword (`format:<name>` for
 * a format): the published schemas leave each out (a standard construct says what it can
 * beside it) and add this to the property's `description`, so that a foreign validator sees
 * every rule it cannot check. Each says what such a validator accepts that mailbridge refuses.
 */
export const BEYOND_STANDARD: Readonly<Record<string, string>> = {
  'format:iso8601':
    'ISO 8601 (validator.js isISO8601, strict): the pattern is its syntax; mailbridge also ' +
    'refuses a date that does not exist (2026-02-30, day 366 of a common year), which the ' +
    'pattern accepts.',
  [UNIQUE_EMAILS_KEYWORD]:
    'No two items have the same `email`, ignoring case: no JSON Schema keyword can say it, so a ' +
    'validator accepts one address twice in different case (ada@example.com, Ada@Example.com) ' +
    'and mailbridge refuses it (INVALID).',
  [LENIENT_KEYWORD]:
    'Lenient: send a value that fits this schema. mailbridge ignores one that does not (a wrong ' +
    'type, too long, a control character): it removes the value, counts it among the ignored ' +
    'fields and handles the event as if the field were absent, never dead-letters it for that.',
};

/** Every ISO 4217 code that class-validator accepts, in any case, as validator.js reads it. */
const CURRENCY_PATTERN = `^(?:${[...CurrencyCodes]
  .map((code) => [...code].map((c) => `[${c}${c.toLowerCase()}]`).join(''))
  .join('|')})$`;

/**
 * Every class-validator rule that the inbound contracts may use, by the name class-validator
 * reports it under, and its JSON Schema given the decorator's constraints. A rule that is not
 * here stops the schema generation at start-up (json-schema.ts): a decorator added to a contract
 * can never be silently left out of validation.
 */
export const RULES: Readonly<Record<string, (constraints: readonly unknown[]) => RuleSchema>> = {
  // Leaves the property out of `required` and lets it be null (json-schema.ts does both).
  isOptional: () => ({}),
  // A `$ref` to the nested class, made by class-validator-jsonschema from the `@Type`.
  nestedValidation: () => ({}),
  isString: () => ({ type: 'string' }),
  isInt: () => ({ type: 'integer' }),
  isBoolean: () => ({ type: 'boolean' }),
  isArray: () => ({ type: 'array' }),
  isObject: () => ({ type: 'object' }),
  isNotEmpty: () => ({ keywords: { minLength: 1 } }),
  maxLength: ([max]) => ({ type: 'string', keywords: { maxLength: max } }),
  min: ([min]) => ({ type: 'number', keywords: { minimum: min } }),
  max: ([max]) => ({ type: 'number', keywords: { maximum: max } }),
  arrayMinSize: ([min]) => ({ type: 'array', keywords: { minItems: min } }),
  arrayMaxSize: ([max]) => ({ type: 'array', keywords: { maxItems: max } }),
  isIn: ([values]) => isInSchema(values),
  equals: ([value]) => equalsSchema(value),
  matches: ([pattern, modifiers]) => matchesSchema(pattern, modifiers),
  isEmail: ([options]) => {
    expectOptions('isEmail', options, [undefined, {}]);
    return { type: 'string', keywords: { format: 'email' } };
  },
  isIso8601: ([options]) => {
    expectOptions('isIso8601', options, [{ strict: true }]);
    // The pattern for every validator, the format for the calendar check only the service runs.
    return { type: 'string', keywords: { pattern: ISO8601_PATTERN, format: 'iso8601' } };
  },
  isISO4217CurrencyCode: () => ({ type: 'string', keywords: { pattern: CURRENCY_PATTERN } }),
  isRfc3339: () => ({ type: 'string', keywords: { format: 'date-time' } }),
  isPlainText: ([options]) => ({
    keywords: { pattern: plainTextPattern(options as PlainTextOptions) },
  }),
  hasNoWhitespace: () => ({ keywords: NO_WHITESPACE_SCHEMA }),
  uniqueAddresses: () => ({ keywords: { [UNIQUE_EMAILS_KEYWORD]: true } }),
  isStringMap: ([limits]) => ({
    type: 'object',
    keywords: stringMapSchema(limits as StringMapLimits),
  }),
};

/**
 * The formats the schemas name, each the very check class-validator runs: `email` is
 * validator.js's `isEmail` with `@IsEmail()`'s default options, `date-time` is RFC 3339 as
 * `is-rfc3339.ts` reads it, `iso8601` is validator.js's `isISO8601` with `strict: true`. (`email`
 * answers the common shape of address without calling `isEmail`: see `isEmailFormat`.)
 */
export const FORMATS: Readonly<Record<string, (value: string) => boolean>> = {
  email: isEmailFormat,
  'date-time': isRfc3339,
  iso8601: (value) => isISO8601(value, { strict: true }),
};

/** The keyword beyond JSON Schema, for validators that take custom keywords (ajv). */
export const KEYWORDS = {
  [UNIQUE_EMAILS_KEYWORD]: { type: 'array', validate: hasUniqueEmails },
} as const;

function isInSchema(values: unknown): RuleSchema {
  if (!Array.isArray(values) || !values.every((v) => typeof v === 'string')) {
    throw new Error('@IsIn: only lists of strings are expressed in JSON Schema');
  }
  return { type: 'string', keywords: { enum: values } };
}

function equalsSchema(value: unknown): RuleSchema {
  // An enum of one, not `const`: an optional property's schema then adds null beside it.
  if (typeof value === 'boolean') return { type: 'boolean', keywords: { enum: [value] } };
  if (typeof value === 'string') return { type: 'string', keywords: { enum: [value] } };
  throw new Error('@Equals: only a boolean or a string is expressed in JSON Schema');
}

function matchesSchema(pattern: unknown, modifiers: unknown): RuleSchema {
  // A flag (i, m, s…) has no place in a JSON Schema pattern; `u` is implied.
  if (!(pattern instanceof RegExp) || pattern.flags !== '' || modifiers !== undefined) {
    throw new Error('@Matches: only a RegExp without flags is expressed in JSON Schema');
  }
  return { type: 'string', keywords: { pattern: pattern.source } };
}

function expectOptions(rule: string, options: unknown, supported: readonly unknown[]): void {
  if (!supported.some((s) => isDeepStrictEqual(s, options))) {
    throw new Error(`@${rule}: these options are not expressed in JSON Schema`);
  }
}

const RULE_OF_TYPE: Readonly<Record<string, string>> = {
  string: 'isString',
  integer: 'isInt',
  number: 'isNumber',
  boolean: 'isBoolean',
  array: 'isArray',
  object: 'isObject',
};
const RULE_OF_FORMAT: Readonly<Record<string, string>> = {
  email: 'isEmail',
  'date-time': 'isRfc3339',
  iso8601: 'isIso8601',
};
const RULE_OF_KEYWORD: Readonly<Record<string, string>> = {
  minLength: 'isNotEmpty',
  maxLength: 'maxLength',
  minimum: 'min',
  maximum: 'max',
  minItems: 'arrayMinSize',
  maxItems: 'arrayMaxSize',
  enum: 'isIn',
  not: 'hasNoWhitespace',
  required: 'isDefined',
  [UNIQUE_EMAILS_KEYWORD]: 'uniqueAddresses',
};
/** Keywords that, inside a property's schema, only a string map uses. */
const STRING_MAP_KEYWORDS = new Set(['maxProperties', 'propertyNames', 'additionalProperties']);
const PLAIN_TEXT_PATTERNS = new Set([plainTextPattern(), plainTextPattern({ multiline: true })]);

/**
 * The class-validator rule that a failed keyword of these schemas stands for, so that messages
 * keep naming rules as they did (`fails isEmail`, `fails min`). `keywordPath` leads from the
 * property's schema to the keyword (`['items', 'maxLength']`); `detail` is the type, format or
 * pattern that failed, where the keyword has one.
 */
export function ruleOf(keywordPath: readonly string[], detail?: string): string {
  const keyword = keywordPath[keywordPath.length - 1];
  if (STRING_MAP_KEYWORDS.has(keywordPath[0])) return 'isStringMap';
  switch (keyword) {
    case 'type':
      return RULE_OF_TYPE[detail ?? ''] ?? 'type';
    case 'format':
      return RULE_OF_FORMAT[detail ?? ''] ?? 'format';
    case 'pattern':
      if (detail === CURRENCY_PATTERN) return 'isISO4217CurrencyCode';
      if (detail === ISO8601_PATTERN) return 'isIso8601';
      return PLAIN_TEXT_PATTERNS.has(detail ?? '') ? 'isPlainText' : 'matches';
    default:
      return RULE_OF_KEYWORD[keyword] ?? keyword;
  }
}

/**
 * An ajv instance that knows the contracts' formats and keywords, each checked as the service
 * checks it: the service's validators compile with it. The published schemas (`schemas/`) need
 * none of them but `email` and `date-time`, which it reads as the service does.
 */
export function contractAjv(options: Options = {}): Ajv {
  const ajv = new Ajv({ allowUnionTypes: true, ...options });
  for (const [name, validate] of Object.entries(FORMATS)) {
    ajv.addFormat(name, { type: 'string', validate });
  }
  // An annotation: the validator finds lenient properties by it when an event fails.
  ajv.addKeyword({ keyword: LENIENT_KEYWORD, schemaType: 'boolean' });
  for (const [keyword, { type, validate }] of Object.entries(KEYWORDS)) {
    ajv.addKeyword({
      keyword,
      type,
      schemaType: 'boolean',
      validate: (enabled: boolean, data: unknown[]) => !enabled || validate(data),
    });
  }
  return ajv;
}
