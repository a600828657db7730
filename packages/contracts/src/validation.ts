import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import isEmail from 'validator/lib/isEmail.js';
import isISO8601 from 'validator/lib/isISO8601.js';
import {
  EMAIL_CAMPAIGN_REQUESTED_V1,
  EMAIL_CONTACT_LIST_REQUESTED_V1,
  ORDER_PLACED_V1,
} from './inbound.js';
import { schemas, type JsonSchema } from './schemas.js';

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-](\d{2}):(\d{2}))$/i;

/**
 * RFC 3339 with a real calendar day (the Gregorian rule, RFC 3339 Appendix C), as mailbridge
 * reads `date-time` (leap second allowed).
 */
function isRfc3339(value: string): boolean {
  const m = RFC3339.exec(value);
  if (!m) return false;
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(Number(m[1]), month)) return false;
  if (Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[6]) > 60) return false;
  return m[9] === undefined || (Number(m[9]) <= 23 && Number(m[10]) <= 59);
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** No two items with the same `email`, ignoring case. */
function hasUniqueEmails(items: unknown): boolean {
  if (!Array.isArray(items)) return true;
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

/** A date that exists, as validator.js's `isISO8601` reads it with `strict: true`. */
function isStrictIso8601(value: unknown): boolean {
  return typeof value !== 'string' || isISO8601.default(value, { strict: true });
}

/** A rule of one field that the schema describes but cannot say (see {@link BEYOND_SCHEMA}). */
interface BeyondSchemaRule {
  /** From the event (plain envelope or structured CloudEvent: both hold the payload in `data`). */
  path: readonly string[];
  check: (value: unknown) => boolean;
  /** Completes `<path> …`, as ajv's messages do. */
  message: string;
}

const UNIQUE_EMAILS = {
  check: hasUniqueEmails,
  message: 'must not have two items with the same email, ignoring case',
};

/**
 * What mailbridge refuses (`INVALID`) beyond standard JSON Schema, by inbound type: the shipped
 * schemas only say it in the field's `description`, so it is checked here once the schema passes.
 */
const BEYOND_SCHEMA = new Map<string, readonly BeyondSchemaRule[]>([
  [
    ORDER_PLACED_V1,
    [
      {
        path: ['data', 'placedAt'],
        check: isStrictIso8601,
        message: 'must be an ISO 8601 date that exists',
      },
    ],
  ],
  [EMAIL_CAMPAIGN_REQUESTED_V1, [{ path: ['data', 'recipients', 'to'], ...UNIQUE_EMAILS }]],
  [EMAIL_CONTACT_LIST_REQUESTED_V1, [{ path: ['data', 'members'], ...UNIQUE_EMAILS }]],
]);

/** The value at `path` in `value`, or undefined where the path leads nowhere. */
function valueAt(value: unknown, path: readonly string[]): unknown {
  return path.reduce<unknown>(
    (at, key) =>
      typeof at === 'object' && at !== null ? (at as Record<string, unknown>)[key] : undefined,
    value,
  );
}

/** Why a value failed its schema: one line per broken rule, naming paths, never values. */
export interface ValidationResult {
  valid: boolean;
  errors: string[];
}

/**
 * Validates values against the package's JSON Schemas with ajv, `email` and `date-time` checked
 * as mailbridge checks them. The shipped schemas are standard JSON Schema; the two rules they can
 * only describe (a date that exists in `order.placed.v1`'s `placedAt`, no address twice ignoring
 * case in a campaign's `recipients.to` or a contact list's `members`) are checked after the
 * schema passes ({@link BEYOND_SCHEMA}), refused as mailbridge refuses them (`INVALID`).
 */
export class SchemaValidator {
  private readonly ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(private readonly source: Readonly<Record<string, JsonSchema>> = schemas()) {
    this.ajv.addFormat('email', { type: 'string', validate: (v) => isEmail.default(v) });
    this.ajv.addFormat('date-time', { type: 'string', validate: isRfc3339 });
  }

  /** Whether a schema named `name` (a type) exists. */
  has(name: string): boolean {
    return Object.hasOwn(this.source, name);
  }

  /** `value` checked against the schema `name`; a missing schema is an error, never a pass. */
  validate(name: string, value: unknown): ValidationResult {
    const validate = this.compiledFor(name);
    if (!validate) return { valid: false, errors: [`no schema named ${name}`] };
    if (!validate(value)) return { valid: false, errors: (validate.errors ?? []).map(describe) };
    const errors = (BEYOND_SCHEMA.get(name) ?? [])
      .filter(({ path, check }) => !check(valueAt(value, path)))
      .map(({ path, message }) => `${path.join('.')} ${message}`);
    return { valid: errors.length === 0, errors };
  }

  private compiledFor(name: string): ValidateFunction | undefined {
    if (!this.has(name)) return undefined;
    let validate = this.compiled.get(name);
    if (!validate) {
      // An `$id` would have ajv keep the schema by it, refusing a second validator's copy.
      const schema = { ...this.source[name] };
      delete schema.$id;
      validate = this.ajv.compile(schema);
      this.compiled.set(name, validate);
    }
    return validate;
  }
}

function describe(error: ErrorObject): string {
  const at =
    error.instancePath === '' ? '(value)' : error.instancePath.slice(1).replaceAll('/', '.');
  return `${at} ${error.message ?? error.keyword}`;
}

let shared: SchemaValidator | undefined;

/** The validator of the schemas shipped with the package. */
export function defaultValidator(): SchemaValidator {
  shared ??= new SchemaValidator();
  return shared;
}

/** Thrown by {@link encodeEvent} and {@link decodeResult} when asked to validate and it fails. */
export class SchemaValidationError extends Error {
  override readonly name = 'SchemaValidationError';

  constructor(
    readonly schema: string,
    readonly errors: readonly string[],
  ) {
    super(`not a valid ${schema}: ${errors.join('; ')}`);
  }
}
