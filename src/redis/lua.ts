import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const read = new Map<string, string>();

/**
 * Marks a script as Redis 7's kind with flags (none here): a Redis Cluster then refuses it if it
 * touches keys of two hash slots, declared or not, where a script without it would be let through.
 */
const STRICT = '#!lua\n';

/**
 * The Lua of `<dir>/<name>.lua` files, joined in the order given (a shared head first), read
 * from disk once per process however many stores load it, and run strictly (`STRICT`). The files
 * sit beside the store that runs them; the build copies them to `dist/` (nest-cli.json assets),
 * as it does templates'.
 */
export function luaScript(dir: string, ...names: string[]): string {
  return STRICT + names.map((name) => luaFile(join(dir, `${name}.lua`))).join('\n');
}

function luaFile(path: string): string {
  let text = read.get(path);
  if (text === undefined) {
    text = readFileSync(path, 'utf8');
    read.set(path, text);
  }
  return text;
}
