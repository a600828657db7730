import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export type JsonSchema = Record<string, unknown>;

/**
 * Where the JSON Schemas are: `dist/schemas/<type>.json`, copied from the repository's `schemas/`
 * folder when the package is built (`@mailbridge/contracts/schemas/<type>.json` to import one).
 * An inbound type's schema describes the whole event (a plain envelope or a structured
 * CloudEvent; in binary mode the record value is its `data`); a result type's describes `data`.
 */
export const SCHEMA_DIR = fileURLToPath(new URL('./schemas/', import.meta.url));

let loaded: Readonly<Record<string, JsonSchema>> | undefined;

/** Every schema shipped with the package, by name (`user.signed_up.v1`), read once. */
export function schemas(): Readonly<Record<string, JsonSchema>> {
  loaded ??= Object.fromEntries(
    (existsSync(SCHEMA_DIR) ? readdirSync(SCHEMA_DIR) : [])
      .filter((file) => file.endsWith('.json'))
      .map((file) => [
        file.slice(0, -'.json'.length),
        JSON.parse(readFileSync(SCHEMA_DIR + file, 'utf8')) as JsonSchema,
      ]),
  );
  return loaded;
}
