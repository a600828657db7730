/**
 * The oldest Node the service runs on, as `package.json`'s `engines` says (a unit test keeps the
 * two equal): NestJS 12 is published as ES modules, which the service's CommonJS loads through
 * `require(esm)`, unflagged from Node 24.9. On an older Node the first import of Nest fails with a
 * message about something else, so `main.ts` checks this before it loads anything.
 */
export const REQUIRED_NODE = '24.9.0';

/** Why `version` (for example `process.versions.node`) cannot run the service, or undefined. */
export function nodeVersionProblem(version: string, required = REQUIRED_NODE): string | undefined {
  if (compare(version, required) >= 0) return undefined;
  return (
    `mailbridge needs Node ${required} or later and this is Node ${version}. ` +
    '`npm install` puts a Node 24 binary in node_modules/.bin, which npm scripts use; ' +
    'run the service with `npm start` or `node_modules/.bin/node dist/main.js`'
  );
}

function compare(a: string, b: string): number {
  const [x, y] = [a, b].map((v) => v.split('.').map((part) => Number.parseInt(part, 10) || 0));
  for (let i = 0; i < 3; i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}
