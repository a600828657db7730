import type { ContractSchema } from './contract-schemas';
import type { JsonSchema } from './json-schema';
import { breakingChanges } from './schema-compatibility';

/**
 * What stands between the current schemas and the published snapshots (`schemas/published/`):
 * a breaking change to a published version, a published version that is gone, a schema not yet
 * published. Each problem is a message to the developer that says the way forward; none means
 * the check passes.
 */
export function evolutionProblems(
  current: readonly ContractSchema[],
  published: ReadonlyMap<string, JsonSchema>,
): string[] {
  const problems: string[] = [];
  const names = new Set(current.map((c) => c.name));
  for (const name of published.keys()) {
    if (!names.has(name)) {
      problems.push(
        `${name} is published (schemas/published/${name}.json) but no contract defines it any more. ` +
          'Others rely on a published version: keep its contract class.',
      );
    }
  }
  for (const { name, direction, schema } of current) {
    const snapshot = published.get(name);
    if (!snapshot) {
      problems.push(
        `${name} has no published snapshot: once it is final, run \`npm run contracts:publish\` ` +
          'and commit schemas/published/.',
      );
      continue;
    }
    const changes = breakingChanges(snapshot, schema, direction);
    if (changes.length === 0) continue;
    const who =
      direction === 'inbound'
        ? 'events that producers publish under the published version would be refused'
        : 'subscribers validating against the published version would refuse what mailbridge now sends';
    problems.push(
      [
        `${name}: a breaking change to a published version (${who}):`,
        ...changes.map((c) => `  - ${c.path}: ${c.change}`),
        `Leave ${name} as published and add a new version, ${nextVersion(name)}: a new contract ` +
          `class and type beside ${name}, published with \`npm run contracts:publish\`. ` +
          'Additive optional fields need no new version.',
      ].join('\n'),
    );
  }
  return problems;
}

/** `user.signed_up.v1` → `user.signed_up.v2`. */
export function nextVersion(name: string): string {
  const match = /^(.*\.v)(\d+)$/.exec(name);
  return match ? `${match[1]}${Number(match[2]) + 1}` : `${name}.v2`;
}
