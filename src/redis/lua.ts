import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Cluster } from 'ioredis';
import type { RedisClient } from './redis.connection';

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

/**
 * Defines a script whose key count is each call's first argument (`EVALSHA sha <count> keys…`)
 * on the shared client. On a Redis Cluster it is kept out of ioredis' auto-pipelining, which
 * groups a turn's commands by the node of their first argument, taken for their key: the count
 * ("1", "3") would stand for the key, and a group holding keys of two primaries is refused as a
 * whole ("All keys in the pipeline should belong to the same slots allocation group"). Sent on
 * its own, the cluster client routes each call by its keys (and follows MOVED and ASK for it),
 * and the calls of one turn still leave together, none waiting for another's answer.
 */
export function defineCountedScript(redis: RedisClient, name: string, lua: string): void {
  redis.defineCommand(name, { lua });
  if (!(redis instanceof Cluster)) return;
  const ignored = redis.options.autoPipeliningIgnoredCommands ?? [];
  // A new array: ioredis' default one is shared by every cluster client of the process.
  if (!ignored.includes(name)) redis.options.autoPipeliningIgnoredCommands = [...ignored, name];
}
