// Puts the JSON Schemas into the @mailbridge/contracts package when it is built:
// `node scripts/contracts-schemas.mjs <out dir>` copies the repository's `schemas/*.json` (one per
// type, generated from src/contracts and checked for compatible evolution) into it.
import { copyFileSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const out = resolve(process.argv[2] ?? 'dist/schemas');
const folder = join(root, 'schemas');
const published = existsSync(folder) ? readdirSync(folder).filter((f) => f.endsWith('.json')) : [];
if (published.length === 0) {
  console.error('contracts: no schemas/*.json to put in the package');
  process.exit(1);
}
mkdirSync(out, { recursive: true });
for (const file of published) copyFileSync(join(folder, file), join(out, file));
console.log(`contracts: ${published.length} schemas copied from schemas/`);
