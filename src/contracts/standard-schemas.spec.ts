import Ajv from 'ajv';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FULL_EVENTS } from '../../test/hostile/full-events';
import { validateEvent } from '../inbound/event.validator';
import type { JsonSchema } from './json-schema';
import { BEYOND_STANDARD, STANDARD_FORMATS } from './json-schema-rules';

/*
 * What a foreign team sees: every published schema is standard JSON Schema (draft-07), which a
 * strict validator that knows only the standard formats compiles, and each rule of the service
 * that JSON Schema cannot say is in the description where it applies and in docs/events.md.
 */

const ROOT = join(__dirname, '../..');
const files = ['schemas', 'schemas/published'].flatMap((dir) =>
  readdirSync(join(ROOT, dir))
    .filter((f) => f.endsWith('.json'))
    .map((f) => `${dir}/${f}`),
);
const read = (file: string) => JSON.parse(readFileSync(join(ROOT, file), 'utf8')) as JsonSchema;

/** A standard validator: strict (unknown keywords and formats fail), standard formats only. */
function standardAjv(): Ajv {
  const ajv = new Ajv({ strict: true, allowUnionTypes: true });
  // Whether a value fits a standard format is not the question here, only that it is one.
  for (const format of STANDARD_FORMATS) ajv.addFormat(format, true);
  return ajv;
}

function serviceAccepts(event: Record<string, unknown>): boolean {
  try {
    validateEvent(event.type as string, structuredClone(event));
    return true;
  } catch {
    return false;
  }
}

describe('the published schemas, read by a standard validator', () => {
  it.each(files)('%s compiles in strict mode with the standard formats only', (file) => {
    expect(() => standardAjv().compile(read(file))).not.toThrow();
  });

  it('accepts a campaign command with one address twice in different case, which the service refuses, and says so', () => {
    const event = structuredClone(FULL_EVENTS.campaign) as {
      data: { recipients: { to: object[] } };
    };
    event.data.recipients.to.push({ name: 'Ada again', email: 'Ada@Example.com' });
    const schema = read('schemas/email.campaign.requested.v1.json');
    expect(standardAjv().validate(schema, event)).toBe(true);
    expect(serviceAccepts(event as unknown as Record<string, unknown>)).toBe(false);
    const to = (schema.definitions as Record<string, JsonSchema>).CampaignRecipientsDto;
    expect(JSON.stringify(to)).toContain('ignoring case');
  });

  it('accepts an order placed on a day that does not exist, which the service refuses, and says so', () => {
    const event = structuredClone(FULL_EVENTS.order) as { data: { placedAt: string } };
    event.data.placedAt = '2026-02-30T10:00:00Z';
    const schema = read('schemas/order.placed.v1.json');
    expect(standardAjv().validate(schema, event)).toBe(true);
    expect(serviceAccepts(event as unknown as Record<string, unknown>)).toBe(false);
    expect(JSON.stringify(schema)).toContain('does not exist');
    // The syntax is the pattern's: what is not ISO 8601 at all fails both.
    event.data.placedAt = '21/11/2026';
    expect(standardAjv().validate(schema, event)).toBe(false);
    expect(serviceAccepts(event as unknown as Record<string, unknown>)).toBe(false);
  });

  it('has each rule beyond JSON Schema named in docs/events.md', () => {
    const readme = readFileSync(join(ROOT, 'docs/events.md'), 'utf8');
    for (const key of Object.keys(BEYOND_STANDARD)) {
      const keyword = key.startsWith('format:') ? `format: ${key.slice(7)}` : key;
      expect([key, readme.includes(`\`${keyword}\``)]).toEqual([key, true]);
    }
  });
});
