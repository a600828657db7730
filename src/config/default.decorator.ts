/**
 * Defaults written beside the validation rules of each variable (`environment.dto.ts`), so that
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

/** The defaults of `schema` in one mode, as the raw environment strings they stand in for. */
export function defaultsFor(schema: Schema, mode: Mode): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [name, byMode] of defaults.get(schema.prototype as object) ?? []) {
    const value = byMode[mode];
    if (value !== undefined) values[name] = value;
  }
  return values;
}

/** Every variable of `schema` declared {@link ReadableFromFile}. */
export function variablesReadableFromFile(schema: Schema): readonly string[] {
  return fileVariables.get(schema.prototype as object) ?? [];
}
