// Puts the JSON Schemas into the @mailbridge/contracts package when it is built:
// `node scripts/contracts-schemas.mjs <out dir>`. They are the repository's `schemas/*.json`,
// one per type, when that folder holds any; otherwise they are generated here from the service's
// contract classes (src/contracts/json-schema.ts, as built into dist/ by `nest build`), which
// gives the four inbound types only.
import { copyFileSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const out = resolve(process.argv[2] ?? 'dist/schemas');
mkdirSync(out, { recursive: true });

const folder = join(root, 'schemas');
const published = existsSync(folder) ? readdirSync(folder).filter((f) => f.endsWith('.json')) : [];
if (published.length > 0) {
  for (const file of published) copyFileSync(join(folder, file), join(out, file));
  console.log(`contracts: ${published.length} schemas copied from schemas/`);
} else {
  const generator = join(root, 'dist/contracts/json-schema.js');
  if (!existsSync(generator)) {
    console.error('contracts: no schemas/ folder and no dist/contracts: run `nest build` first');
    process.exit(1);
  }
  const require = createRequire(import.meta.url);
  require('reflect-metadata');
  const { INBOUND_SCHEMAS } = require(generator);
  for (const [type, schema] of Object.entries(INBOUND_SCHEMAS)) {
    writeFileSync(join(out, `${type}.json`), `${JSON.stringify(schema, null, 2)}\n`);
  }
  console.log(
    `contracts: ${Object.keys(INBOUND_SCHEMAS).length} schemas generated from src/contracts`,
  );
}
