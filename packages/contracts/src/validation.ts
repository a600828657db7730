import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import isEmail from 'validator/lib/isEmail.js';
import isISO8601 from 'validator/lib/isISO8601.js';
import { schemas, type JsonSchema } from './schemas.js';

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-](\d{2}):(\d{2}))$/i;

/** RFC 3339 with a real calendar day, as mailbridge reads `date-time` (leap second allowed). */
function isRfc3339(value: string): boolean {
  const m = RFC3339.exec(value);
  if (!m) return false;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
  const date = new Date(Date.UTC(year, month - 1, day));
  const realDay = date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
  const offsetOk = m[9] === undefined || (Number(m[9]) <= 23 && Number(m[10]) <= 59);
  return realDay && hour <= 23 && minute <= 59 && second <= 60 && offsetOk;
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
 * Validates values against the package's JSON Schemas with ajv, with the formats and the one
 * custom keyword the schemas use, each checked as mailbridge checks it.
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
