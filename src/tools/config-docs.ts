import 'reflect-metadata';
import { readFileSync, writeFileSync } from 'node:fs';
import { EnvironmentVariables } from '../config/environment.dto';
import { CONFIGURATION_DOC, configurationDoc, schemaSources } from './configuration-doc';

/**
 * `npm run config:docs`: writes `docs/configuration.md` from the environment schema (its
 * decorators and its doc comments). `npm run config:check`: fails when the committed file differs
 * from what the schema generates, or when a setting has no doc comment. npm runs them from the
 * repository root.
 */
function main(command: string): number {
  let generated: string;
  try {
    generated = configurationDoc(EnvironmentVariables, schemaSources());
  } catch (error) {
    console.error((error as Error).message);
    return 1;
  }
  switch (command) {
    case 'generate':
      writeFileSync(CONFIGURATION_DOC, generated);
      console.log(`wrote ${CONFIGURATION_DOC}`);
      return 0;
    case 'check':
      return check(generated);
    default:
      console.error('usage: config-docs.js generate | check');
      return 2;
  }
}

function check(generated: string): number {
  let committed = '';
  try {
    committed = readFileSync(CONFIGURATION_DOC, 'utf8');
  } catch {
    console.error(`${CONFIGURATION_DOC} is missing`);
  }
  if (committed === generated) {
    console.log(`config: ${CONFIGURATION_DOC} matches the environment schema`);
    return 0;
  }
  const want = generated.split('\n');
  const have = committed.split('\n');
  const shown = want
    .map((line, i) => ({ line: i + 1, want: line, have: have[i] }))
    .filter((l) => l.want !== l.have)
    .slice(0, 5);
  console.error(
    `${CONFIGURATION_DOC} is stale: it differs from what the environment schema generates`,
  );
  for (const l of shown) {
    console.error(
      `  line ${l.line}:\n    committed: ${l.have ?? '(none)'}\n    generated: ${l.want}`,
    );
  }
  console.error('run `npm run config:docs` and commit the result');
  return 1;
}

process.exitCode = main(process.argv[2] ?? '');
