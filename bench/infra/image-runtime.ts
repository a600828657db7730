import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './repo-root';

/**
 * How the image runs the service, read from the Dockerfile so that the benchmark measures the
 * shipped default: the V8 heap limits of `ENV NODE_OPTIONS=…`, and the flags of the final
 * `CMD ["node", …, "dist/main.js"]` that NODE_OPTIONS may not carry (Node refuses most V8 flags
 * there, `--heap-growing-percent` among them).
 */
export interface ImageRuntime {
  nodeOptions: string;
  nodeFlags: string[];
}

export function imageRuntime(
  dockerfile = readFileSync(join(repoRoot(), 'Dockerfile'), 'utf8'),
): ImageRuntime {
  const options = /^ENV NODE_OPTIONS=(.+)$/m.exec(dockerfile);
  if (!options) throw new Error('the Dockerfile sets no NODE_OPTIONS');
  // The service's CMD is the last one at the start of a line (HEALTHCHECK's is indented).
  const cmd = [...dockerfile.matchAll(/^CMD (\[.*\])\s*$/gm)].at(-1);
  const argv = cmd ? (JSON.parse(cmd[1]) as unknown) : undefined;
  if (
    !Array.isArray(argv) ||
    argv[0] !== 'node' ||
    argv.at(-1) !== 'dist/main.js' ||
    !argv.every((arg) => typeof arg === 'string')
  ) {
    throw new Error(`the Dockerfile's CMD is not ["node", …, "dist/main.js"]: ${cmd?.[1]}`);
  }
  return {
    nodeOptions: options[1].trim().replace(/^"(.*)"$/, '$1'),
    nodeFlags: argv.slice(1, -1),
  };
}
