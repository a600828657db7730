import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import isEmail from 'validator/lib/isEmail.js';
import isISO8601 from 'validator/lib/isISO8601.js';
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

/** `x-uniqueEmailsIgnoringCase`: no two items with the same `email`, ignoring case. */
function hasUniqueEmails(items: readonly unknown[]): boolean {
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

/** Why a value failed its schema: one line per broken rule, naming paths, never values. */
export interface ValidationResult {
  valid: boolean;
  errors: string[];
}

/**
 * Validates values against the package's JSON Schemas with ajv, `email` and `date-time` checked
 * as mailbridge checks them. The shipped schemas are standard JSON Schema: the two rules they
 * can only describe (a real calendar day in `placedAt`, no address twice ignoring case) are not
 * checked here. `iso8601` and `x-uniqueEmailsIgnoringCase` are known for schemas that use them.
 */
export class SchemaValidator {
  private readonly ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(private readonly source: Readonly<Record<string, JsonSchema>> = schemas()) {
    this.ajv.addFormat('email', { type: 'string', validate: (v) => isEmail.default(v) });
    this.ajv.addFormat('date-time', { type: 'string', validate: isRfc3339 });
    this.ajv.addFormat('iso8601', {
      type: 'string',
      validate: (v) => isISO8601.default(v, { strict: true }),
    });
    this.ajv.addKeyword({
      keyword: 'x-uniqueEmailsIgnoringCase',
      type: 'array',
      schemaType: 'boolean',
      validate: (enabled: boolean, data: unknown[]) => !enabled || hasUniqueEmails(data),
    });
  }

  /** Whether a schema named `name` (a type) exists. */
  has(name: string): boolean {
    return Object.hasOwn(this.source, name);
  }

  /** `value` checked against the schema `name`; a missing schema is an error, never a pass. */
  validate(name: string, value: unknown): ValidationResult {
    const validate = this.compiledFor(name);
    if (!validate) return { valid: false, errors: [`no schema named ${name}`] };
    if (validate(value)) return { valid: true, errors: [] };
    return { valid: false, errors: (validate.errors ?? []).map(describe) };
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
