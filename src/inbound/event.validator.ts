import type { ErrorObject, ValidateFunction } from 'ajv';
import { INBOUND_READERS, type InboundEvent } from '../contracts/inbound-contracts';
import { INBOUND_SCHEMAS, lenientPaths } from '../contracts/json-schema';
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
 * Told what the reader removed from an event it accepted (see {@link validateEvent}): `unknown`,
 * fields the contract does not declare (a tolerant reader's), and `unfit`, values of lenient
 * properties that did not fit their rules.
 */
export type IgnoredFieldsListener = (
  type: string,
  unknown: readonly string[],
  unfit: readonly string[],
) => void;

/** A property that no schema of its object declares: where its object is, and its name. */
interface Unknown {
  at: string[];
  name: string;
}

/** Each type's lenient properties, as the paths of ignored fields name them (`data.customer.locale`). */
const LENIENT: ReadonlyMap<string, ReadonlySet<string>> = new Map(
  Object.entries(INBOUND_SCHEMAS).map(([type, schema]) => [type, new Set(lenientPaths(schema))]),
);

/**
 * `plain` as an event of `type`, checked against its contract, or {@link InvalidEventError}:
 * `UNKNOWN_FIELD` when a property is not declared anywhere in it (whatever else is wrong),
 * else `INVALID`. Messages name property paths and the class-validator rule each broke
 * (`data.email fails isEmail`), never values.
 *
 * A lenient property's value (`@Lenient()`) that breaks its rules is not an error either: it is
 * deleted from `plain` as if it had not been sent. For a type read tolerantly (`INBOUND_READERS`),
 * an undeclared property of `data`, at any depth, is not an error: it is deleted from `plain`
 * (which the caller owns). The rest is validated, and what was removed handed to `onIgnored`
 * (`data.items[].discount`) once the event is accepted. The closed schema runs first either way,
 * so that an event that fits costs what it did; only one that fails pays for finding and
 * removing what to ignore.
 */
export function validateEvent(
  type: string,
  plain: Record<string, unknown>,
  onIgnored?: IgnoredFieldsListener,
): InboundEvent {
  // Plain booleans: an ajv type guard would narrow `plain` to never once it has failed.
  const fast: ((data: unknown) => boolean) | undefined = FAST.get(type);
  const full = FULL.get(type);
  if (!fast || !full) throw new InvalidEventError('INVALID', `${type} has no schema`);
  if (fast(plain)) return plain as unknown as InboundEvent;
  full(plain);
  const { unfit, rest } = removeUnfit(plain, LENIENT.get(type), full.errors ?? []);
  let { unknown, broken } = explain(rest);
  let ignored: string[] = [];
  if (INBOUND_READERS[type] === 'tolerant' && unknown.some(inData)) {
    ignored = strip(plain, unknown.filter(inData));
    unknown = unknown.filter((u) => !inData(u));
  }
  if (unknown.length === 0 && (unfit.length > 0 || ignored.length > 0)) {
    if (fast(plain)) {
      onIgnored?.(type, ignored, unfit);
      return plain as unknown as InboundEvent;
    }
    full(plain);
    ({ unknown, broken } = explain(full.errors ?? []));
  }
  if (unknown.length > 0) {
    throw new InvalidEventError(
      'UNKNOWN_FIELD',
      `${type} has unknown fields: ${unique(unknown.map((u) => pathText([...u.at, u.name]))).join('; ')}`,
    );
  }
  throw new InvalidEventError('INVALID', `${type} is invalid: ${broken.join('; ') || 'no detail'}`);
}

function inData(unknown: Unknown): boolean {
  return unknown.at[0] === 'data';
}

/**
 * Deletes from `plain` each value that broke a rule of a `lenient` property; returns their paths,
 * each once, and the other errors.
 */
function removeUnfit(
  plain: Record<string, unknown>,
  lenient: ReadonlySet<string> | undefined,
  errors: readonly ErrorObject[],
): { unfit: string[]; rest: ErrorObject[] } {
  if (!lenient?.size) return { unfit: [], rest: [...errors] };
  const unfit = new Set<string>();
  const rest: ErrorObject[] = [];
  for (const error of errors) {
    // A lenient property is a scalar (json-schema.ts): its errors are at the value itself.
    const at = instancePath(error.instancePath);
    const name = at.pop();
    const shown = name === undefined ? undefined : shownPath(plain, at, name);
    if (shown === undefined || !lenient.has(shown)) {
      rest.push(error);
      continue;
    }
    if (!unfit.has(shown)) delete (valueAt(plain, at) as Record<string, unknown>)[name!];
    unfit.add(shown);
  }
  return { unfit: [...unfit], rest };
}

/** The value at `path` in `plain`. */
function valueAt(plain: Record<string, unknown>, path: readonly string[]): unknown {
  let node: unknown = plain;
  for (const key of path) node = (node as Record<string, unknown>)[key];
  return node;
}

/** `data.items[].discount`: the path of property `name` of the object at `at`, as logged. */
function shownPath(plain: Record<string, unknown>, at: readonly string[], name: string): string {
  let shown = '';
  let node: unknown = plain;
  for (const key of at) {
    shown += Array.isArray(node) ? '[]' : `${shown ? '.' : ''}${pathText([key])}`;
    node = (node as Record<string, unknown>)[key];
  }
  return `${shown}.${pathText([name])}`;
}

/**
 * Deletes each unknown property from `plain`; returns their paths, each once, an array's items
 * standing for one another (`data.items[].discount`).
 */
function strip(plain: Record<string, unknown>, unknown: readonly Unknown[]): string[] {
  const paths = new Set<string>();
  for (const { at, name } of unknown) {
    paths.add(shownPath(plain, at, name));
    delete (valueAt(plain, at) as Record<string, unknown>)[name];
  }
  return [...paths];
}

function unique(texts: readonly string[]): string[] {
  return [...new Set(texts)];
}

function explain(errors: readonly ErrorObject[]): { unknown: Unknown[]; broken: string[] } {
  const unknown: Unknown[] = [];
  const broken = new Set<string>();
  for (const error of errors) {
    const { keywordPath, inProperty } = locate(error.schemaPath);
    // The `anyOf` of an optional nested object: the branch that fits the value says what failed.
    if (keywordPath[0] === 'anyOf') continue;
    const path = instancePath(error.instancePath);
    const params = error.params as Record<string, unknown>;
    if (!inProperty && error.keyword === 'additionalProperties') {
      unknown.push({ at: path, name: String(params.additionalProperty) });
      continue;
    }
    if (error.keyword === 'required') path.push(String(params.missingProperty));
    // A rule on each item or map value is reported on the property, as class-validator did.
    const below = keywordPath.filter((k) => k === 'items' || k === 'additionalProperties').length;
    const rule = ruleOf(keywordPath, detailOf(params));
    broken.add(`${pathText(path.slice(0, path.length - below))} fails ${rule}`);
  }
  return { unknown, broken: [...broken] };
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
