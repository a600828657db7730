import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { nodeVersionProblem, REQUIRED_NODE } from './node-version';

describe('nodeVersionProblem', () => {
  it('accepts the required version and any later one', () => {
    for (const version of ['24.9.0', '24.21.0', '24.10.1', '25.0.0', '30.1.2']) {
      expect(nodeVersionProblem(version, '24.9.0')).toBeUndefined();
    }
  });

  it('names both versions and the Node that npm installed when the version is older', () => {
    for (const version of ['20.19.0', '24.8.9', '22.12.0', '8.0.0']) {
      expect(nodeVersionProblem(version, '24.9.0')).toBe(
        `mailbridge needs Node 24.9.0 or later and this is Node ${version}. ` +
          '`npm install` puts a Node 24 binary in node_modules/.bin, which npm scripts use; ' +
          'run the service with `npm start` or `node_modules/.bin/node dist/main.js`',
      );
    }
  });

  it('compares numbers, not text: 24.10 is later than 24.9', () => {
    expect(nodeVersionProblem('24.10.0', '24.9.0')).toBeUndefined();
    expect(nodeVersionProblem('24.9.0', '24.10.0')).toContain('needs Node 24.10.0');
  });

  it("requires what package.json's engines field says", () => {
    const pkg = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as {
      engines: { node: string };
    };
    expect(`>=${REQUIRED_NODE}`.replace(/\.0$/, '')).toBe(pkg.engines.node);
  });
});
