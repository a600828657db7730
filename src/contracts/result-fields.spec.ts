import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JsonSchema } from './json-schema';
import { RESULT_DATA_CONTRACTS } from './contract-schemas';
import { EMAIL_UNSUBSCRIBED_V1 } from './email-unsubscribed.v1';

/*
 * docs/events.md's table of result `data` fields (between `<!-- result-fields -->` markers) says
 * what the published result schemas say: every field, and which are optional (`name?`).
 */

const ROOT = join(__dirname, '../..');
const FIELD = /^[a-z][A-Za-z0-9]*\??$/;

/** Each row's fields, by its first cell: a type, or `every result`. */
function documented(): Map<string, string[]> {
  const events = readFileSync(join(ROOT, 'docs/events.md'), 'utf8');
  const section = /<!-- result-fields -->([\s\S]*?)<!-- \/result-fields -->/.exec(events);
  if (!section) throw new Error('docs/events.md: no <!-- result-fields --> section');
  const rows = new Map<string, string[]>();
  for (const line of section[1].split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length < 4 || /^-+$/.test(cells[1]) || cells[1] === 'type') continue;
    const fields = [...cells[2].matchAll(/`([^`]+)`/g)]
      .map((m) => m[1])
      .filter((f) => FIELD.test(f));
    rows.set(cells[1].replaceAll('`', ''), fields);
  }
  return rows;
}

/** The schema's fields, each with `?` when it is not required. */
function published(type: string): string[] {
  const schema = JSON.parse(
    readFileSync(join(ROOT, 'schemas', `${type}.json`), 'utf8'),
  ) as JsonSchema;
  const required = new Set(schema.required as string[]);
  return Object.keys(schema.properties as JsonSchema).map((f) => (required.has(f) ? f : `${f}?`));
}

describe('the result fields of docs/events.md', () => {
  const rows = documented();

  it('has a row per result type and one for every result', () => {
    expect([...rows.keys()].sort()).toEqual(
      ['every result', ...Object.keys(RESULT_DATA_CONTRACTS)].sort(),
    );
  });

  it.each(Object.keys(RESULT_DATA_CONTRACTS))(
    '%s: names every field of its schema, optional ones with ?, and no other',
    (type) => {
      // An unsubscribe answers no inbound event: it has none of the fields that name one.
      const common = type === EMAIL_UNSUBSCRIBED_V1 ? [] : rows.get('every result')!;
      const docs = [...common, ...rows.get(type)!];
      expect(docs.sort()).toEqual(published(type).sort());
    },
  );
});
