import type { ErrorObject, ValidateFunction } from 'ajv';
import type { InboundEvent } from '../contracts/inbound-contracts';
import { INBOUND_SCHEMAS } from '../contracts/json-schema';
import { contractAjv, ruleOf } from '../contracts/json-schema-rules';
import { InvalidEventError } from './invalid-event.error';

/**
 * One validator per event type, compiled once from the contracts' JSON Schemas. The fast one
 * stops at the first failure; the full one runs only for an event that failed, to say why.
 */
const FAST = compileAll(false);
const FULL = compileAll(true);

/** A property name from the input is shown only if it cannot carry anything but a name. */
const NAME = /^[A-Za-z0-9_$-]{1,64}$/;

function compileAll(allErrors: boolean): ReadonlyMap<string, ValidateFunction> {
  // strict: a keyword or format the schemas use but nobody defined fails here, not silently.
  const ajv = contractAjv({ allErrors, strict: true, messages: false });
  return new Map(
    Object.entries(INBOUND_SCHEMAS).map(([type, schema]) => [type, ajv.compile(schema)]),
  );
}

/**
 * `plain` as an event of `type`, checked against its contract, or {@link InvalidEventError}:
 * `UNKNOWN_FIELD` when a property is not declared anywhere in it (whatever else is wrong),
 * else `INVALID`. Messages name property paths and the class-validator rule each broke
 * (`data.email fails isEmail`), never values.
 */
export function validateEvent(type: string, plain: Record<string, unknown>): InboundEvent {
  const fast = FAST.get(type);
  const full = FULL.get(type);
  if (!fast || !full) throw new InvalidEventError('INVALID', `${type} has no schema`);
  if (fast(plain)) return plain as unknown as InboundEvent;
  full(plain);
  const { unknown, broken } = explain(full.errors ?? []);
  if (unknown.length > 0) {
    throw new InvalidEventError(
      'UNKNOWN_FIELD',
      `${type} has unknown fields: ${unknown.join('; ')}`,
    );
  }
  throw new InvalidEventError('INVALID', `${type} is invalid: ${broken.join('; ') || 'no detail'}`);
}

function explain(errors: readonly ErrorObject[]): { unknown: string[]; broken: string[] } {
  const unknown = new Set<string>();
  const broken = new Set<string>();
  for (const error of errors) {
    const { keywordPath, inProperty } = locate(error.schemaPath);
    // The `anyOf` of an optional nested object: the branch that fits the value says what failed.
    if (keywordPath[0] === 'anyOf') continue;
    const path = instancePath(error.instancePath);
    const params = error.params as Record<string, unknown>;
    if (!inProperty && error.keyword === 'additionalProperties') {
      unknown.add(pathText([...path, String(params.additionalProperty)]));
      continue;
    }
    if (error.keyword === 'required') path.push(String(params.missingProperty));
    // A rule on each item or map value is reported on the property, as class-validator did.
    const below = keywordPath.filter((k) => k === 'items' || k === 'additionalProperties').length;
    const rule = ruleOf(keywordPath, detailOf(params));
    broken.add(`${pathText(path.slice(0, path.length - below))} fails ${rule}`);
  }
  return { unknown: [...unknown], broken: [...broken] };
}

/** The type, format or pattern that failed, where the keyword has one. */
function detailOf(params: Record<string, unknown>): string | undefined {
  // An optional property's type is [its type, 'null'].
  const type = Array.isArray(params.type) ? (params.type as unknown[])[0] : params.type;
  return [type, params.format, params.pattern].find((v) => typeof v === 'string');
}

/**
 * Where a failed keyword sits in the schema: the keywords that lead to it from the schema of
 * the property it belongs to (`['items', 'maxLength']`), or from its class's schema.
 */
function locate(schemaPath: string): { keywordPath: string[]; inProperty: boolean } {
  const segments = schemaPath.split('/').slice(1);
  let start = 0;
  let inProperty = false;
  for (let i = 0; i < segments.length;) {
    const keyword = segments[i];
    // These take a name or an index after them; every other keyword stands alone.
    i += keyword === 'definitions' || keyword === 'properties' || keyword === 'anyOf' ? 2 : 1;
    if (keyword === 'definitions' || keyword === 'properties') {
      start = i;
      inProperty = keyword === 'properties';
    }
  }
  return { keywordPath: segments.slice(start), inProperty };
}

function instancePath(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .split('/')
    .slice(1)
    .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
}

function pathText(path: readonly string[]): string {
  if (path.length === 0) return '(event)';
  return path.map((name) => (NAME.test(name) ? name : '(unnamed)')).join('.');
}
