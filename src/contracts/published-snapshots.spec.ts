import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/*
 * One text per version: `schemas/<name>.json` (the contract) and `schemas/published/<name>.json`
 * (the compatibility baseline) are the same file, and each version has its changelog section. A
 * compatible change is published (`npm run contracts:publish`) and recorded with it.
 */

const ROOT = join(__dirname, '../..');
const jsonIn = (dir: string) =>
  readdirSync(join(ROOT, dir))
    .filter((f) => f.endsWith('.json'))
    .sort();
const text = (path: string) => readFileSync(join(ROOT, path), 'utf8');

describe('schemas/ and schemas/published/', () => {
  it('hold the same versions', () => {
    expect(jsonIn('schemas/published')).toEqual(jsonIn('schemas'));
  });

  it.each(jsonIn('schemas'))('%s: the contract is the published text', (file) => {
    expect(text(`schemas/${file}`)).toBe(text(`schemas/published/${file}`));
  });

  it('have a changelog section naming every version', () => {
    const headings = text('schemas/CHANGELOG.md')
      .split('\n')
      .filter((line) => line.startsWith('## '))
      .flatMap((line) => line.slice(3).split(/,\s*/));
    expect(headings.sort()).toEqual(jsonIn('schemas').map((f) => f.replace(/\.json$/, '')));
  });
});
