/**
 * Defaults written beside the validation rules of each variable (`environment/*.env.ts`), so that
 * a setting is declared in one place. Values are strings, as the environment would give them:
 * the DTO's decorators then convert and validate a default exactly like a value that was set.
 */

export const MODES = ['local', 'production'] as const;
export type Mode = (typeof MODES)[number];

type Defaults = Partial<Record<Mode, string>>;

/** A class whose properties carry these decorators. */
type Schema = abstract new () => object;

/** What the decorators recorded, per class (by prototype) and variable. */
const defaults = new WeakMap<object, Map<string, Defaults>>();
const fileVariables = new WeakMap<object, string[]>();

function defaultsOf(prototype: object): Map<string, Defaults> {
  let byName = defaults.get(prototype);
  if (!byName) defaults.set(prototype, (byName = new Map<string, Defaults>()));
  return byName;
}

/**
 * The variable's value when it is unset or empty: `production` in every mode, unless `local`
 * gives `MAILBRIDGE_MODE=local` its own (a loopback broker, the sandbox, …).
 */
export function Default(production: string, modes: { local?: string } = {}): PropertyDecorator {
  return (prototype, property) => {
    defaultsOf(prototype).set(String(property), { production, local: modes.local ?? production });
  };
}

/** A default for local mode only: production requires the variable. */
export function LocalDefault(local: string): PropertyDecorator {
  return (prototype, property) => {
    defaultsOf(prototype).set(String(property), { local });
  };
}

/** `<NAME>_FILE` may name a file holding the value instead (container secrets). */
export function ReadableFromFile(): PropertyDecorator {
  return (prototype, property) => {
    fileVariables.set(prototype, [...(fileVariables.get(prototype) ?? []), String(property)]);
  };
}

/**
 * The prototypes whose decorators `schema` has: its own and those of the classes it extends, the
 * furthest ancestor first, so that the schema's variables keep the order they are declared in and
 * a subclass's declaration of a variable replaces its ancestor's.
 */
function prototypesOf(schema: Schema): object[] {
  const chain: object[] = [];
  let prototype = schema.prototype as object | null;
  while (prototype && prototype !== Object.prototype) {
    chain.unshift(prototype);
    prototype = Object.getPrototypeOf(prototype) as object | null;
  }
  return chain;
}

/** The defaults of `schema` in one mode, as the raw environment strings they stand in for. */
export function defaultsFor(schema: Schema, mode: Mode): Record<string, string> {
  const byName = new Map<string, Defaults>();
  for (const prototype of prototypesOf(schema)) {
    for (const [name, byMode] of defaults.get(prototype) ?? []) byName.set(name, byMode);
  }
  const values: Record<string, string> = {};
  for (const [name, byMode] of byName) {
    const value = byMode[mode];
    if (value !== undefined) values[name] = value;
  }
  return values;
}

/** Every variable of `schema` declared {@link ReadableFromFile}. */
export function variablesReadableFromFile(schema: Schema): readonly string[] {
  const names = prototypesOf(schema).flatMap((prototype) => fileVariables.get(prototype) ?? []);
  return [...new Set(names)];
}
