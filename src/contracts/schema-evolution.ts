import { directionOf, type ContractSchema, type SchemaPromise } from './contract-schemas';
import { lenientPaths, type JsonSchema } from './json-schema';
import { BEYOND_STANDARD, LENIENT_KEYWORD } from './json-schema-rules';
import { breakingChanges } from './schema-compatibility';

/** What each kind of schema promises, as the problems say it. */
const PROMISES: Readonly<Record<SchemaPromise, string>> = {
  'domain-event':
    'a domain event, read tolerantly: producers may add fields first, so each release accepts ' +
    'every event the published version accepted, and its schema leaves data open for unknown fields',
  command:
    'a command to mailbridge, read strictly: each release accepts every command the published ' +
    'version accepted, and its schema refuses unknown fields in data',
  result:
    'written by mailbridge: subscribers can rely on every published field, so all a release may ' +
    'write passes the published version, and its schema leaves unknown fields open',
};

/**
 * What stands between the current schemas and the published snapshots (`schemas/published/`):
 * a schema whose content model breaks what its kind promises (see `SchemaPromise`), a breaking
 * change to a published version, a published version that is gone, a schema not yet published.
 * Each problem is a message to the developer that says the way forward; none means the check
 * passes.
 */
export function evolutionProblems(
  current: readonly ContractSchema[],
  published: ReadonlyMap<string, JsonSchema>,
): string[] {
  const problems: string[] = [];
  const names = new Set(current.map((c) => c.name));
  for (const name of published.keys()) {
    if (!names.has(name)) {
      problems.push(
        `${name} is published (schemas/published/${name}.json) but no contract defines it any more. ` +
          'Others rely on a published version: keep its contract class.',
      );
    }
  }
  for (const { name, promise, schema, lenient } of current) {
    problems.push(...contentProblems(name, promise, schema));
    const snapshot = published.get(name);
    if (!snapshot) {
      problems.push(
        `${name} has no published snapshot: once it is final, run \`npm run contracts:publish\` ` +
          'and commit schemas/published/.',
      );
      continue;
    }
    problems.push(...noLongerLenient(name, snapshot, lenient));
    const direction = directionOf(promise);
    const changes = breakingChanges(snapshot, schema, direction, new Set(lenient));
    if (changes.length === 0) continue;
    const who =
      direction === 'inbound'
        ? 'events that producers publish under the published version would be refused'
        : 'subscribers validating against the published version would refuse what mailbridge now sends';
    problems.push(
      [
        `${name} (${PROMISES[promise]}): a breaking change to a published version (${who}):`,
        ...changes.map((c) => `  - ${c.path}: ${c.change}`),
        `Leave ${name} as published and add a new version, ${nextVersion(name)}: a new contract ` +
          `class and type beside ${name}, published with \`npm run contracts:publish\`. ` +
          (direction === 'inbound'
            ? 'A new optional field read leniently (@Lenient()) needs no new version.'
            : 'Additive optional fields need no new version.'),
      ].join('\n'),
    );
  }
  return problems;
}

/**
 * A property the published version reads leniently (its description says so) that the current
 * one reads strictly: a value that was ignored would now be refused.
 */
function noLongerLenient(
  name: string,
  published: JsonSchema,
  lenient: readonly string[],
): string[] {
  const note = BEYOND_STANDARD[LENIENT_KEYWORD];
  const was = lenientPaths(
    published,
    (p) => typeof p.description === 'string' && p.description.includes(note),
  );
  return was
    .filter((path) => !lenient.includes(path))
    .map(
      (path) =>
        `${name}: ${path} is lenient in the published version (a value that does not fit is ` +
        `ignored) but not in the current one, which would refuse such an event: keep @Lenient(), ` +
        `or add a new version, ${nextVersion(name)}.`,
    );
}

/**
 * Where `schema`'s content model breaks what `promise` says: a domain event's `data` closed
 * anywhere, a command's open anywhere, an inbound envelope not open for CloudEvents extension
 * attributes, a result's schema closed anywhere.
 */
export function contentProblems(
  name: string,
  promise: SchemaPromise,
  schema: JsonSchema,
): string[] {
  const problems: string[] = [];
  const say = (what: string) =>
    problems.push(`${name} (${PROMISES[promise]}): ${what}. Generate it from INBOUND_READERS.`);
  if (promise === 'result') {
    for (const [at, object] of objectSchemas(schema)) {
      if (object.additionalProperties === false) say(`${at} refuses unknown fields`);
    }
    return problems;
  }
  const definitions = (schema.definitions ?? {}) as Record<string, JsonSchema>;
  for (const [className, definition] of Object.entries(definitions)) {
    const closed = definition.additionalProperties === false;
    if (promise === 'domain-event' && closed) say(`${className} (in data) refuses unknown fields`);
    if (promise === 'command' && !closed) say(`${className} (in data) allows unknown fields`);
  }
  if (schema.additionalProperties !== false || !schema.patternProperties) {
    say('the envelope is not closed but for CloudEvents extension attributes (patternProperties)');
  }
  return problems;
}

/** Every schema in `schema` that declares properties, at any depth, with where it is. */
function* objectSchemas(schema: unknown, at = '#'): Generator<[string, JsonSchema]> {
  if (typeof schema !== 'object' || schema === null) return;
  const s = schema as JsonSchema;
  if (s.properties || s.additionalProperties !== undefined) yield [at, s];
  for (const [key, child] of Object.entries(s)) yield* objectSchemas(child, `${at}/${key}`);
}

/** `user.signed_up.v1` → `user.signed_up.v2`. */
export function nextVersion(name: string): string {
  const match = /^(.*\.v)(\d+)$/.exec(name);
  return match ? `${match[1]}${Number(match[2]) + 1}` : `${name}.v2`;
}
