import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The mailbridge checkout this harness belongs to, found from the compiled file's location. */
export function repoRoot(from: string = __dirname): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      const { name } = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string };
      if (name === 'mailbridge') return dir;
    }
    if (dirname(dir) === dir) throw new Error(`no mailbridge package.json above ${from}`);
  }
}
