import 'reflect-metadata';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  contractFiles,
  driftProblems,
  generatedSchemaFiles,
  json,
  PUBLISHED_DIR,
  readPublished,
} from '../asyncapi/contract-files';
import { contractSchemas } from '../contracts/contract-schemas';
import { evolutionProblems } from '../contracts/schema-evolution';

const ROOT = '.';

/**
 * `npm run contracts:generate`: writes the JSON Schemas (`schemas/`) and the AsyncAPI document
 * (`asyncapi/`) from the contract classes. `npm run contracts:check`: fails when the committed
 * files differ from what the classes generate, or when a change breaks a published version.
 * `npm run contracts:publish`: after the same check, snapshots every current schema into
 * `schemas/published/`. npm runs them from the repository root.
 */
function main(command: string): number {
  switch (command) {
    case 'generate':
      return generate();
    case 'check':
      return report([
        ...driftProblems(ROOT),
        ...evolutionProblems(contractSchemas(), readPublished(ROOT)),
      ]);
    case 'publish':
      return publish();
    default:
      console.error('usage: contracts.js generate | check | publish');
      return 2;
  }
}

function generate(): number {
  const files = contractFiles();
  for (const stale of generatedSchemaFiles(ROOT)) if (!files.has(stale)) rmSync(stale);
  for (const [path, content] of files) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
  }
  console.log(`wrote ${[...files.keys()].join(', ')}`);
  return 0;
}

function publish(): number {
  const current = contractSchemas();
  const published = readPublished(ROOT);
  // Publishing is how a schema gets its first snapshot: only breaking changes stop it.
  const problems = evolutionProblems(
    current.filter((c) => published.has(c.name)),
    published,
  );
  if (report(problems) !== 0) return 1;
  mkdirSync(PUBLISHED_DIR, { recursive: true });
  for (const { name, schema } of current) {
    writeFileSync(join(PUBLISHED_DIR, `${name}.json`), json(schema));
  }
  console.log(`published ${current.map((c) => c.name).join(', ')} in ${PUBLISHED_DIR}/`);
  return 0;
}

function report(problems: readonly string[]): number {
  for (const p of problems) console.error(p);
  if (problems.length > 0) return 1;
  console.log('contracts: the files match the contract classes; no published version is broken');
  return 0;
}

process.exitCode = main(process.argv[2] ?? '');
