import { isDeepStrictEqual } from 'node:util';
import type { SchemaDirection } from './contract-schemas';
import type { JsonSchema } from './json-schema';
import { ISO8601_PATTERN } from './json-schema-rules';

/** One way in which a schema change can break the ones who rely on the published version. */
export interface BreakingChange {
  /** Where, as a property path (`data.customer.email`, `data.items[]`); `(root)` for the top. */
  path: string;
  change: string;
}

type Label = 'published' | 'current';

/** A schema and the document its `$ref`s point into. */
interface Node {
  schema: JsonSchema | boolean;
  root: JsonSchema;
  label: Label;
  /** The paths of the properties the service reads leniently (`data.customer.timeZone`). */
  lenient: ReadonlySet<string>;
}

/** The keywords this comparer understands; any other one must stay exactly as published. */
const LIMITS_AT_MOST = ['maxLength', 'maxItems', 'maximum', 'maxProperties'] as const;
const LIMITS_AT_LEAST = ['minLength', 'minItems', 'minimum', 'minProperties'] as const;
/** Keywords whose change cannot be judged here (two patterns): they must stay as they are. */
const UNCHANGED = ['pattern', 'format', 'not', 'const', 'uniqueItems'] as const;
const ANNOTATIONS = new Set([
  '$schema',
  '$id',
  'title',
  'description',
  'definitions',
  'examples',
  'default',
  // A header's binary encoding, once said in this keyword too: a note, never a rule.
  'x-encoding',
]);
/**
 * A format whose values all match a pattern: a schema with the format is at least as narrow as
 * one with the pattern (the published `iso8601` format became its pattern).
 */
const PATTERN_OF_FORMAT: Readonly<Record<string, string>> = { iso8601: ISO8601_PATTERN };
const HANDLED = new Set<string>([
  ...ANNOTATIONS,
  ...LIMITS_AT_MOST,
  ...LIMITS_AT_LEAST,
  ...UNCHANGED,
  '$ref',
  'anyOf',
  'type',
  'enum',
  'items',
  'properties',
  'required',
  'additionalProperties',
  'patternProperties',
  'propertyNames',
  'if',
  'then',
  'else',
]);
const CONDITIONAL = ['if', 'then', 'else'] as const;

/**
 * How the current schema of a published message breaks its published one. An `inbound` schema
 * breaks when an event the published version accepted would now be refused (a field removed or
 * renamed, a type or limit tightened, an enum narrowed, a field newly required); an `outbound`
 * one when a message the current version allows would fail the published one, which subscribers
 * validate against (a field that was always there may be missing, a type or enum widened).
 * Additive optional fields pass outbound (its schemas leave unknown properties open). Inbound, a
 * newly declared property passes when it is optional and lenient (`lenient`, the current
 * properties' paths): the published schema left `data` open, so producers may already send any
 * value under that name, which a lenient property ignores when it does not fit; a strict one
 * would refuse it.
 */
export function breakingChanges(
  published: JsonSchema,
  current: JsonSchema,
  direction: SchemaDirection,
  lenient: ReadonlySet<string> = new Set(),
): BreakingChange[] {
  // As JSON: a generated schema may hold objects of other prototypes than parsed ones.
  const [was, is] = [published, current].map((s) => JSON.parse(JSON.stringify(s)) as JsonSchema);
  const old: Node = { schema: was, root: was, label: 'published', lenient: new Set() };
  const now: Node = { schema: is, root: is, label: 'current', lenient };
  const changes: BreakingChange[] = [];
  // Every instance of the first must pass the second.
  if (direction === 'inbound') compare(old, now, '', changes);
  else compare(now, old, '', changes);
  return changes;
}

function compare(narrow: Node, wide: Node, path: string, out: BreakingChange[]): void {
  const x = resolve(narrow);
  const y = resolve(wide);
  const report = (change: string): void => {
    out.push({ path: path || '(root)', change });
  };
  if (y.schema === true || x.schema === false) return;
  if (y.schema === false) return report(`${x.label} allows a value here, ${y.label} none`);
  // `true` allows any value, as `{}` does.
  const xs = x.schema === true ? {} : x.schema;
  const ys = y.schema;

  if (Array.isArray(xs.anyOf)) {
    for (const branch of xs.anyOf as JsonSchema[]) compare({ ...x, schema: branch }, y, path, out);
    return;
  }
  if (Array.isArray(ys.anyOf)) {
    // Fits if it fits one branch; else the branch that comes closest says why not.
    const tries = (ys.anyOf as JsonSchema[]).map((branch) => {
      const found: BreakingChange[] = [];
      compare(x, { ...y, schema: branch }, path, found);
      return found;
    });
    out.push(...tries.reduce((best, t) => (t.length < best.length ? t : best)));
    return;
  }

  if (compareConditionals(x, xs, y, ys, path, out)) return;

  compareTypes(x, xs, y, ys, report);
  compareEnums(x, xs, y, ys, report);
  compareKeywords(x, xs, y, ys, report);
  if (ys.items !== undefined) {
    compare(
      { ...x, schema: (xs.items as JsonSchema) ?? true },
      { ...y, schema: ys.items as JsonSchema },
      `${path}[]`,
      out,
    );
  }
  if (ys.propertyNames !== undefined) {
    const names = (xs.propertyNames as JsonSchema) ?? namesAllowed(xs);
    compare(
      { ...x, schema: names },
      { ...y, schema: ys.propertyNames as JsonSchema },
      `${path}{}`,
      out,
    );
  }
  compareObjects(x, xs, y, ys, path, out);
}

/**
 * `if`/`then`/`else` that differ between the two sides, judged conservatively; true when that
 * settled the comparison. The same conditional on both sides leaves the rest to compare.
 */
function compareConditionals(
  x: Node,
  xs: JsonSchema,
  y: Node,
  ys: JsonSchema,
  path: string,
  out: BreakingChange[],
): boolean {
  if (CONDITIONAL.every((k) => isDeepStrictEqual(xs[k], ys[k]))) return false;
  // The narrow side's condition can only narrow it: dropping it leaves a wider narrow side.
  const narrow = { ...x, schema: withoutConditional(xs) };
  if (ys.if === undefined) {
    compare(narrow, y, path, out);
    return true;
  }
  // Whatever the wide side's `if` makes of a value, it passes when it fits both branches.
  for (const branch of ['then', 'else'] as const) {
    compare(narrow, { ...y, schema: (ys[branch] as JsonSchema | undefined) ?? true }, path, out);
  }
  compare(narrow, { ...y, schema: withoutConditional(ys) }, path, out);
  return true;
}

function compareTypes(
  x: Node,
  xs: JsonSchema,
  y: Node,
  ys: JsonSchema,
  report: (change: string) => void,
): void {
  const wide = types(ys);
  if (wide === undefined) return;
  const narrow = types(xs);
  if (narrow === undefined) return report(`type: ${x.label} any, ${y.label} ${wide.join('|')}`);
  const allowed = (t: string) => wide.includes(t) || (t === 'integer' && wide.includes('number'));
  const extra = narrow.filter((t) => !allowed(t));
  if (extra.length > 0) {
    report(`type: ${x.label} allows ${extra.join('|')}, ${y.label} only ${wide.join('|')}`);
  }
}

function compareEnums(
  x: Node,
  xs: JsonSchema,
  y: Node,
  ys: JsonSchema,
  report: (change: string) => void,
): void {
  if (!Array.isArray(ys.enum)) return;
  if (!Array.isArray(xs.enum))
    return report(`enum: ${x.label} any value, ${y.label} ${show(ys.enum)}`);
  const wide = ys.enum as unknown[];
  const extra = (xs.enum as unknown[]).filter((v) => !wide.some((w) => isDeepStrictEqual(v, w)));
  if (extra.length > 0) report(`enum: ${x.label} allows ${show(extra)}, ${y.label} does not`);
}

/**
 * The limits, which the narrow side must keep within the wide side's, and the keywords that
 * cannot be judged here (unknown ones included), which must equal the wide side's where it has
 * them.
 */
function compareKeywords(
  x: Node,
  xs: JsonSchema,
  y: Node,
  ys: JsonSchema,
  report: (change: string) => void,
): void {
  for (const k of LIMITS_AT_MOST) {
    const [a, b] = [xs[k] as number | undefined, ys[k] as number | undefined];
    if (b !== undefined && (a === undefined || a > b)) {
      report(`${k} ${y.label} ${b}, ${x.label} ${a ?? 'none'}`);
    }
  }
  for (const k of LIMITS_AT_LEAST) {
    const [a, b] = [xs[k] as number | undefined, ys[k] as number | undefined];
    if (b !== undefined && (a === undefined || a < b)) {
      report(`${k} ${y.label} ${b}, ${x.label} ${a ?? 'none'}`);
    }
  }
  for (const k of [...UNCHANGED, ...unknownKeywords(xs, ys)]) {
    const implied =
      k === 'pattern' && typeof xs.format === 'string' && PATTERN_OF_FORMAT[xs.format] === ys[k];
    if (ys[k] !== undefined && !isDeepStrictEqual(xs[k], ys[k]) && !implied) {
      report(`${k} changed (${x.label} ${show(xs[k])}, ${y.label} ${show(ys[k])})`);
    }
  }
}

function compareObjects(
  x: Node,
  xs: JsonSchema,
  y: Node,
  ys: JsonSchema,
  path: string,
  out: BreakingChange[],
): void {
  const at = (name: string) => (path ? `${path}.${name}` : name);
  const narrowRequired = new Set((xs.required ?? []) as string[]);
  for (const name of (ys.required ?? []) as string[]) {
    if (!narrowRequired.has(name)) {
      out.push({ path: at(name), change: `required by ${y.label}, not by ${x.label}` });
    }
  }
  const xProps = (xs.properties ?? {}) as Record<string, JsonSchema | undefined>;
  const yProps = (ys.properties ?? {}) as Record<string, JsonSchema | undefined>;
  for (const name of new Set([...Object.keys(xProps), ...Object.keys(yProps)])) {
    const narrow = xProps[name] ?? otherProperties(xs);
    if (narrow === false) continue;
    if (xProps[name] === undefined && yProps[name] !== undefined) {
      // Any value passes a lenient property (one that does not fit is ignored); `required`
      // above still refuses a new required one.
      if (y.lenient.has(at(name))) continue;
      // Left open where the other declares it: gone from this one, whatever it may hold now.
      const way =
        y.label === 'current'
          ? ': make it optional and lenient (@Lenient(): a value that does not fit is ignored), or add it in a new version'
          : '';
      out.push({ path: at(name), change: `declared by ${y.label}, not by ${x.label}${way}` });
      continue;
    }
    const wide = yProps[name] ?? otherProperties(ys);
    if (wide === false) {
      out.push({ path: at(name), change: `allowed by ${x.label}, refused by ${y.label}` });
      continue;
    }
    compare({ ...x, schema: narrow }, { ...y, schema: wide }, at(name), out);
  }
  if (comparePatterns(x, xs, y, ys, path, out)) return;
  const yOthers = otherProperties(ys);
  const xOthers = otherProperties(xs);
  if (yOthers === false && xOthers !== false) {
    out.push({
      path: path || '(root)',
      change: `unknown properties: ${x.label} allows them, ${y.label} refuses them`,
    });
  } else if (yOthers !== true && xOthers !== false) {
    compare({ ...x, schema: xOthers }, { ...y, schema: yOthers }, `${path}{*}`, out);
  }
}

/**
 * `patternProperties`: a pattern may not match a declared property (what both would demand of it
 * is not judged), and patterns that differ are judged only where it does not matter, when the
 * narrow side allows no undeclared property at all. True when that settled the undeclared ones.
 */
function comparePatterns(
  x: Node,
  xs: JsonSchema,
  y: Node,
  ys: JsonSchema,
  path: string,
  out: BreakingChange[],
): boolean {
  const xPatterns = (xs.patternProperties ?? {}) as Record<string, JsonSchema>;
  const yPatterns = (ys.patternProperties ?? {}) as Record<string, JsonSchema>;
  const declared = [...Object.keys(xs.properties ?? {}), ...Object.keys(ys.properties ?? {})];
  for (const pattern of new Set([...Object.keys(xPatterns), ...Object.keys(yPatterns)])) {
    const overlap = new Set(declared.filter((name) => new RegExp(pattern, 'u').test(name)));
    if (overlap.size > 0) {
      out.push({
        path: path || '(root)',
        change: `patternProperties ${pattern} matches declared properties (${[...overlap].join(', ')}): cannot be judged`,
      });
    }
  }
  if (isDeepStrictEqual(xPatterns, yPatterns)) return false;
  const narrowAllowsNone = otherProperties(xs) === false && Object.keys(xPatterns).length === 0;
  if (!narrowAllowsNone) {
    out.push({
      path: path || '(root)',
      change: `patternProperties changed (${x.label} ${show(xPatterns)}, ${y.label} ${show(yPatterns)})`,
    });
  }
  return true;
}

/** The schema without its `if`/`then`/`else`. */
function withoutConditional(schema: JsonSchema): JsonSchema {
  const rest = { ...schema };
  for (const k of CONDITIONAL) delete rest[k];
  return rest;
}

/** What the names of an object's properties may be: its declared ones only, if it is closed. */
function namesAllowed(schema: JsonSchema): JsonSchema {
  const closed = schema.additionalProperties === false && schema.patternProperties === undefined;
  return closed ? { enum: Object.keys(schema.properties ?? {}) } : { type: 'string' };
}

/** What a property that `properties` does not name may be. */
function otherProperties(schema: JsonSchema): JsonSchema | boolean {
  const others = schema.additionalProperties;
  return others === undefined ? true : (others as JsonSchema | boolean);
}

function resolve(node: Node): Node {
  let schema = node.schema;
  for (let hops = 0; typeof schema === 'object' && typeof schema.$ref === 'string'; hops++) {
    const ref = schema.$ref;
    const match = /^#\/definitions\/([^/]+)$/.exec(ref);
    const target = match
      ? (node.root.definitions as Record<string, JsonSchema>)[match[1]]
      : undefined;
    if (!target || hops > 32)
      throw new Error(`cannot resolve $ref ${ref} in the ${node.label} schema`);
    schema = target;
  }
  return { ...node, schema };
}

function types(schema: JsonSchema): string[] | undefined {
  const t = schema.type;
  if (t === undefined) return undefined;
  return Array.isArray(t) ? (t as string[]) : [t as string];
}

/** Keywords beyond what this comparer understands (`x-…` ones among them): kept as they are. */
function unknownKeywords(a: JsonSchema, b: JsonSchema): string[] {
  return [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => !HANDLED.has(k));
}

function show(value: unknown): string {
  return value === undefined ? 'none' : JSON.stringify(value);
}
