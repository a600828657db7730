import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const read = new Map<string, string>();

/**
 * The Lua of `<dir>/<name>.lua` files, joined in the order given (a shared head first), read
 * from disk once per process however many stores load it. The files sit beside the store that
 * runs them; the build copies them to `dist/` (nest-cli.json assets), as it does templates'.
 */
export function luaScript(dir: string, ...names: string[]): string {
  return names.map((name) => luaFile(join(dir, `${name}.lua`))).join('\n');
}

function luaFile(path: string): string {
  let text = read.get(path);
  if (text === undefined) {
    text = readFileSync(path, 'utf8');
    read.set(path, text);
  }
  return text;
}
