import { isDeepStrictEqual } from 'node:util';
import type { MetadataStorage } from 'class-transformer/types/MetadataStorage';
import { getMetadataStorage, ValidationTypes } from 'class-validator';
import { validationMetadataArrayToSchemas } from 'class-validator-jsonschema';
import { INBOUND_CONTRACTS } from './inbound-contracts';
import { LENIENT_KEYWORD, RULES, type JsonType, type RuleSchema } from './json-schema-rules';
import { isLenient } from './lenient';

export type JsonSchema = Record<string, unknown>;

type Metadata = ReturnType<
  ReturnType<typeof getMetadataStorage>['getTargetValidationMetadatas']
>[number];
type Converters = NonNullable<
  NonNullable<Parameters<typeof validationMetadataArrayToSchemas>[1]>['additionalConverters']
>;
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- what the metadata stores
export type Class = Function;

/** One decorator on one property: its metadata and the rule it is, by class-validator's name. */
interface RuleUse {
  meta: Metadata;
  rule: string;
}

const DRAFT_07 = 'http://json-schema.org/draft-07/schema#';
const storage = getMetadataStorage();
// class-transformer keeps the `@Type` metadata here, at a path its typings do not declare.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { defaultMetadataStorage } = require('class-transformer/cjs/storage') as {
  defaultMetadataStorage: MetadataStorage;
};

/**
 * The JSON Schema (draft-07, which AsyncAPI's schema format extends) of every inbound event type, generated from the contract
 * classes' class-validator and class-transformer decorators by class-validator-jsonschema: the
 * decorated classes stay the one definition of a contract. Each schema is self-contained (the
 * nested classes it uses are under `definitions`) and says what class-validator checked with
 * `whitelist` and `forbidNonWhitelisted`: no unknown property at any level, and an
 * `@IsOptional()` property may be absent or null. `json-schema-rules.ts` says how each rule is
 * expressed; a rule it does not know stops this at start-up.
 */
export const INBOUND_SCHEMAS: Readonly<Record<string, JsonSchema>> = schemasOf(INBOUND_CONTRACTS, {
  closed: true,
});

/**
 * The JSON Schemas of decorated contract classes, by the keys of `contracts`. `closed` refuses
 * unknown properties, as the inbound validation does; a result's schema leaves them open, so that
 * a subscriber that validates keeps accepting results when a later release adds an optional field.
 */
export function schemasOf(
  contracts: Readonly<Record<string, Class>>,
  options: { closed: boolean },
): Record<string, JsonSchema> {
  const classes = reachableClasses(Object.values(contracts));
  const uses = new Map(classes.map((c) => [c, ruleUses(c)]));
  const own = classes.flatMap((c) => uses.get(c)!.filter((u) => u.meta.target === c));
  const schemas = validationMetadataArrayToSchemas(
    own.map((u) => u.meta),
    {
      additionalConverters: converters(),
      classTransformerMetadataStorage: defaultMetadataStorage,
      refPointerPrefix: '#/definitions/',
    },
  ) as Record<string, JsonSchema>;
  for (const c of classes) finishClass(schemas[c.name], c, uses.get(c)!, options.closed);
  return Object.fromEntries(
    Object.entries(contracts).map(([key, c]) => [key, selfContained(c.name, schemas)]),
  );
}

/**
 * The paths of `schema`'s lenient properties (`data.customer.timeZone`, `data.items[].note`), as
 * `breakingChanges` names properties and the validator names ignored fields. `isLenient` says
 * which property schemas are (a published schema says it only in the description).
 */
export function lenientPaths(
  schema: JsonSchema,
  isLenient: (property: JsonSchema) => boolean = (p) => p[LENIENT_KEYWORD] === true,
): string[] {
  const definitions = (schema.definitions ?? {}) as Record<string, JsonSchema>;
  const found: string[] = [];
  const seen = new Set<JsonSchema>();
  const walk = (node: unknown, path: string): void => {
    if (typeof node !== 'object' || node === null) return;
    let s = node as JsonSchema;
    const ref = typeof s.$ref === 'string' ? /^#\/definitions\/(.+)$/.exec(s.$ref) : null;
    if (ref) s = definitions[ref[1]];
    if (seen.has(s)) return;
    seen.add(s);
    for (const branch of (s.anyOf ?? []) as unknown[]) walk(branch, path);
    if (s.items !== undefined) walk(s.items, `${path}[]`);
    for (const [name, property] of Object.entries((s.properties ?? {}) as JsonSchema)) {
      const at = path ? `${path}.${name}` : name;
      if (isLenient(property as JsonSchema)) found.push(at);
      else walk(property, at);
    }
    seen.delete(s);
  };
  walk(schema, '');
  return found;
}

/** The contracts, the classes they extend and every class nested in them (`@Type`). */
function reachableClasses(roots: readonly Class[]): Class[] {
  const found = new Map<string, Class>();
  const pending = [...roots];
  while (pending.length > 0) {
    const c = pending.pop()!;
    if (found.get(c.name) === c) continue;
    if (found.has(c.name)) throw new Error(`two contract classes are named ${c.name}`);
    found.set(c.name, c);
    const parent = Object.getPrototypeOf(c) as unknown;
    if (typeof parent === 'function' && parent !== Function.prototype) pending.push(parent);
    for (const meta of storage.getTargetValidationMetadatas(c, '', true, false)) {
      if (meta.type === ValidationTypes.NESTED_VALIDATION) pending.push(nestedClass(meta));
    }
  }
  return [...found.values()];
}

function nestedClass(meta: Metadata): Class {
  const type = defaultMetadataStorage.findTypeMetadata(meta.target as Class, meta.propertyName);
  if (!type) throw new Error(`${where(meta)}: @ValidateNested() needs @Type(() => TheClass)`);
  return type.typeFunction();
}

/**
 * Every rule on `c`'s properties, inherited ones included, with the metadata in the form
 * class-validator-jsonschema reads (a custom rule's `type` is its constraint's name).
 */
function ruleUses(c: Class): RuleUse[] {
  return storage.getTargetValidationMetadatas(c, '', true, false).map((original) => {
    const meta = { ...original };
    if (meta.type === ValidationTypes.CUSTOM_VALIDATION) {
      meta.type = storage.getTargetValidatorConstraints(meta.constraintCls)[0]?.name ?? meta.type;
    }
    // @IsOptional() and @ValidateIf() are both conditional; only the first has a name.
    const rule =
      meta.type === ValidationTypes.CONDITIONAL_VALIDATION ? (meta.name ?? '') : meta.type;
    if (!Object.hasOwn(RULES, rule)) {
      throw new Error(`${where(meta)}: no JSON Schema for rule '${rule}' (json-schema-rules.ts)`);
    }
    if (meta.groups?.length) throw new Error(`${where(meta)}: validation groups are not expressed`);
    return { meta, rule };
  });
}

/** RULES' keywords in the form class-validator-jsonschema calls; it makes `$ref`s itself. */
function converters(): Converters {
  const entries = Object.entries(RULES)
    .filter(([rule]) => rule !== 'nestedValidation')
    .map(([rule, schemaOf]) => [
      rule,
      (meta: Metadata) => schemaOf(meta.constraints ?? []).keywords ?? {},
    ]);
  return Object.fromEntries(entries) as Converters;
}

/**
 * What class-validator-jsonschema leaves to its caller: unknown properties refused, each
 * property typed once from all its rules, optional properties nullable, lenient ones marked.
 */
function finishClass(
  schema: JsonSchema,
  c: Class,
  uses: readonly RuleUse[],
  closed: boolean,
): void {
  if (closed) schema.additionalProperties = false;
  const properties = schema.properties as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  for (const name of Object.keys(properties)) {
    const propertyUses = uses.filter((u) => u.meta.propertyName === name);
    const at = `${c.name}.${name}`;
    checkNoClash(propertyUses, at);
    const typed = withTypes(properties[name], propertyUses, at);
    if (isLenient(c, name)) markLenient(typed, required.has(name), at);
    properties[name] = required.has(name) ? typed : nullable(typed);
  }
}

/**
 * `@Lenient()`: the validator removes a value that breaks this property's schema instead of
 * refusing the event, which only an optional property of one scalar type can be (its value is
 * the whole property: nothing inside it to remove instead).
 */
function markLenient(schema: JsonSchema, required: boolean, at: string): void {
  if (required) throw new Error(`${at}: @Lenient() needs @IsOptional()`);
  if (!['string', 'integer', 'number', 'boolean'].includes(schema.type as string)) {
    throw new Error(`${at}: @Lenient() is for a string, number or boolean property`);
  }
  schema[LENIENT_KEYWORD] = true;
}

function schemaOf(use: RuleUse): RuleSchema {
  return RULES[use.rule](use.meta.constraints ?? []);
}

/**
 * class-validator-jsonschema merges a property's rules' keywords one over another: of two rules
 * that need one keyword (two patterns), only the last would be checked. That stops generation
 * instead. `type` is not among the keywords: {@link withTypes} sets it once.
 */
function checkNoClash(uses: readonly RuleUse[], at: string): void {
  const seen = new Map<string, unknown>();
  for (const use of uses) {
    const keywords = schemaOf(use).keywords ?? {};
    for (const [path, value] of leaves(use.meta.each ? { items: keywords } : keywords)) {
      if (seen.has(path) && !isDeepStrictEqual(seen.get(path), value)) {
        throw new Error(`${at}: two rules need '${path}' (json-schema-rules.ts)`);
      }
      seen.set(path, value);
    }
  }
}

/** The property's schema with the one type all its rules demand (and its items', for `each`). */
function withTypes(schema: JsonSchema, uses: readonly RuleUse[], at: string): JsonSchema {
  const own = uses.filter((u) => !u.meta.each).map((u) => schemaOf(u).type);
  const each = uses.filter((u) => u.meta.each);
  if (each.length > 0) own.push('array');
  if ('$ref' in schema) {
    // The nested class's schema says `type: object`; nothing may stand beside a draft-07 $ref.
    if (own.some((t) => t !== undefined && t !== 'object')) throw new Error(`${at}: not an object`);
    return { $ref: schema.$ref };
  }
  const typed: JsonSchema = { ...schema, type: oneType(own, at) };
  const items = schema.items as JsonSchema | undefined;
  if (each.length > 0 && items && !('$ref' in items)) {
    typed.items = {
      ...items,
      type: oneType(
        each.map((u) => schemaOf(u).type),
        `${at}[]`,
      ),
    };
  }
  return typed;
}

function oneType(types: ReadonlyArray<JsonType | undefined>, at: string): JsonType {
  const set = new Set(types.filter((t) => t !== undefined));
  if (set.has('integer')) set.delete('number');
  if (set.size !== 1) {
    const found = [...set].join(', ') || 'none';
    throw new Error(
      `${at}: its rules must demand one type, not ${found} (add @IsString() or such)`,
    );
  }
  return [...set][0];
}

/** `@IsOptional()` lets null through as well as absence. */
function nullable(schema: JsonSchema): JsonSchema {
  if ('$ref' in schema) return { anyOf: [schema, { type: 'null' }] };
  const result: JsonSchema = { ...schema, type: [schema.type, 'null'] };
  if (Array.isArray(schema.enum)) result.enum = [...(schema.enum as unknown[]), null];
  return result;
}

/** The class's schema with every class it refers to, at any depth, under `definitions`. */
function selfContained(name: string, schemas: Readonly<Record<string, JsonSchema>>): JsonSchema {
  const definitions: Record<string, JsonSchema> = {};
  const pending = refsIn(schemas[name]);
  while (pending.length > 0) {
    const ref = pending.pop()!;
    if (ref in definitions) continue;
    definitions[ref] = schemas[ref];
    pending.push(...refsIn(schemas[ref]));
  }
  return structuredClone({ $schema: DRAFT_07, ...schemas[name], definitions });
}

function refsIn(schema: JsonSchema): string[] {
  return [...JSON.stringify(schema).matchAll(/"\$ref":"#\/definitions\/([^"]+)"/g)].map(
    (m) => m[1],
  );
}

function* leaves(value: unknown, path = ''): Generator<[string, unknown]> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    yield [path, value];
    return;
  }
  for (const [key, child] of Object.entries(value))
    yield* leaves(child, path ? `${path}/${key}` : key);
}

function where(meta: Metadata): string {
  const target = meta.target;
  return `${typeof target === 'string' ? target : target.name}.${meta.propertyName}`;
}
