import { join } from 'node:path';
import { contractSchemas } from '../contracts/contract-schemas';
import { evolutionProblems } from '../contracts/schema-evolution';
import { readPublished } from './contract-files';

/**
 * `npm run contracts:check`'s evolution half, in the unit project so that `npm test` and CI run
 * it: no change to a contract class may break a version published in `schemas/published/`.
 */
describe('the published schemas', () => {
  it('are not broken by the current contract classes', () => {
    const published = readPublished(join(__dirname, '../..'));
    expect(published.size).toBeGreaterThanOrEqual(9);
    expect(evolutionProblems(contractSchemas(), published)).toEqual([]);
  });
});
