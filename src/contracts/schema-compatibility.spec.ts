import { breakingChanges } from './schema-compatibility';
import type { JsonSchema } from './json-schema';
import { ISO8601_PATTERN } from './json-schema-rules';

/** An inbound event schema in the generator's shape: a closed object with a nested `data`. */
function event(data: JsonSchema, dataRequired: string[] = ['email']): JsonSchema {
  return {
    type: 'object',
    additionalProperties: false,
    properties: { id: { type: 'string' }, data: { $ref: '#/definitions/Data' } },
    required: ['id', 'data'],
    definitions: {
      Data: {
        type: 'object',
        additionalProperties: false,
        properties: data,
        required: dataRequired,
      },
    },
  };
}

const DATA: JsonSchema = {
  email: { type: 'string', maxLength: 320, minLength: 1 },
  plan: { type: ['string', 'null'], enum: ['free', 'pro', null] },
  count: { type: 'integer', minimum: 0, maximum: 100 },
  tags: { type: 'array', items: { type: 'string', maxLength: 50 }, maxItems: 10 },
};

function inbound(change: (data: Record<string, JsonSchema>) => void, required?: string[]) {
  const data = structuredClone(DATA) as Record<string, JsonSchema>;
  change(data);
  return breakingChanges(event(DATA), event(data, required), 'inbound');
}

describe(breakingChanges.name, () => {
  describe('an inbound schema (others produce, mailbridge accepts)', () => {
    it('passes when nothing changed', () => {
      expect(breakingChanges(event(DATA), event(DATA), 'inbound')).toEqual([]);
    });

    it('passes an added optional field, a loosened limit, a widened enum or type', () => {
      expect(
        inbound((d) => {
          d.locale = { type: ['string', 'null'], maxLength: 35 };
          d.email.maxLength = 400;
          delete d.email.minLength;
          d.plan.enum = ['free', 'pro', 'trial', null];
          d.count.type = 'number';
        }),
      ).toEqual([]);
    });

    it.each<[string, (d: Record<string, JsonSchema>) => void, string[] | undefined, object]>([
      [
        'a removed field',
        (d) => delete d.plan,
        undefined,
        { path: 'data.plan', change: 'allowed by published, refused by current' },
      ],
      [
        'a renamed field',
        (d) => {
          d.mail = d.email;
          delete d.email;
        },
        ['mail'],
        { path: 'data.email', change: 'allowed by published, refused by current' },
      ],
      [
        'a newly required field',
        () => undefined,
        ['email', 'plan'],
        { path: 'data.plan', change: 'required by current, not by published' },
      ],
      [
        'a tightened type',
        (d) => (d.plan.type = 'string'),
        undefined,
        { path: 'data.plan', change: 'type: published allows null, current only string' },
      ],
      [
        'a narrowed enum',
        (d) => (d.plan.enum = ['pro', null]),
        undefined,
        { path: 'data.plan', change: 'enum: published allows ["free"], current does not' },
      ],
      [
        'a lower maxLength',
        (d) => (d.email.maxLength = 100),
        undefined,
        { path: 'data.email', change: 'maxLength current 100, published 320' },
      ],
      [
        'a higher minLength',
        (d) => (d.email.minLength = 3),
        undefined,
        { path: 'data.email', change: 'minLength current 3, published 1' },
      ],
      [
        'a higher minimum',
        (d) => (d.count.minimum = 1),
        undefined,
        { path: 'data.count', change: 'minimum current 1, published 0' },
      ],
      [
        'a lower maxItems',
        (d) => (d.tags.maxItems = 5),
        undefined,
        { path: 'data.tags', change: 'maxItems current 5, published 10' },
      ],
      [
        'a tighter item',
        (d) => ((d.tags.items as JsonSchema).maxLength = 20),
        undefined,
        { path: 'data.tags[]', change: 'maxLength current 20, published 50' },
      ],
      [
        'a changed pattern',
        (d) => (d.email.pattern = '^[^@]+@'),
        undefined,
        { path: 'data.email', change: 'pattern changed (published none, current "^[^@]+@")' },
      ],
      [
        'a new format',
        (d) => (d.email.format = 'email'),
        undefined,
        { path: 'data.email', change: 'format changed (published none, current "email")' },
      ],
      [
        'a new custom keyword',
        (d) => (d.tags['x-unique'] = true),
        undefined,
        { path: 'data.tags', change: 'x-unique changed (published none, current true)' },
      ],
    ])('fails on %s', (_kind, change, required, expected) => {
      expect(inbound(change, required)).toContainEqual(expected);
    });

    it('fails when unknown properties, once allowed, are refused', () => {
      const open = event(DATA);
      delete (open.definitions as Record<string, JsonSchema>).Data.additionalProperties;
      expect(breakingChanges(open, event(DATA), 'inbound')).toEqual([
        { path: 'data', change: 'unknown properties: published allows them, current refuses them' },
      ]);
    });

    it('follows a nullable $ref, as optional nested classes are generated', () => {
      const published: JsonSchema = {
        type: 'object',
        properties: { address: { anyOf: [{ $ref: '#/definitions/A' }, { type: 'null' }] } },
        definitions: {
          A: { type: 'object', properties: { city: { type: 'string', maxLength: 50 } } },
        },
      };
      const current = structuredClone(published);
      (
        (current.definitions as Record<string, JsonSchema>).A.properties as Record<
          string,
          JsonSchema
        >
      ).city.maxLength = 10;
      expect(breakingChanges(published, published, 'inbound')).toEqual([]);
      expect(breakingChanges(published, current, 'inbound')).toEqual([
        { path: 'address.city', change: 'maxLength current 10, published 50' },
      ]);
    });
  });

  describe("a domain event's open data gaining a field (any value passed the published one)", () => {
    /** The published domain event: `data` open for unknown fields. */
    function open(data: JsonSchema, required?: string[]): JsonSchema {
      const schema = event(data, required);
      delete (schema.definitions as Record<string, JsonSchema>).Data.additionalProperties;
      return schema;
    }
    const TIME_ZONE: JsonSchema = { type: ['string', 'null'], maxLength: 64, pattern: '^[^\\n]*$' };
    const withZone = { ...DATA, timeZone: TIME_ZONE };

    it('passes a new optional lenient field: a value that does not fit is ignored, never refused', () => {
      expect(
        breakingChanges(open(DATA), open(withZone), 'inbound', new Set(['data.timeZone'])),
      ).toEqual([]);
    });

    it('fails a new strict field, and says to make it lenient or publish a new version', () => {
      expect(breakingChanges(open(DATA), open(withZone), 'inbound')).toEqual([
        {
          path: 'data.timeZone',
          change:
            'declared by current, not by published: make it optional and lenient (@Lenient(): a ' +
            'value that does not fit is ignored), or add it in a new version',
        },
      ]);
    });

    it('fails a new lenient field that is required', () => {
      expect(
        breakingChanges(
          open(DATA),
          open(withZone, ['email', 'timeZone']),
          'inbound',
          new Set(['data.timeZone']),
        ),
      ).toEqual([{ path: 'data.timeZone', change: 'required by current, not by published' }]);
    });

    it('passes an existing field made lenient (it accepts more), and still judges its rules', () => {
      const published = open(withZone);
      const lenient = new Set(['data.timeZone']);
      expect(breakingChanges(published, open(withZone), 'inbound', lenient)).toEqual([]);
      const tighter = open({ ...DATA, timeZone: { ...TIME_ZONE, maxLength: 10 } });
      expect(breakingChanges(published, tighter, 'inbound', lenient)).toEqual([
        { path: 'data.timeZone', change: 'maxLength current 10, published 64' },
      ]);
    });
  });

  describe('an outbound schema (mailbridge produces, subscribers validate)', () => {
    const result = (properties: JsonSchema, required: string[]): JsonSchema => ({
      type: 'object',
      properties,
      required,
    });
    const RESULT = {
      listId: { type: 'string' },
      count: { type: 'integer' },
      code: { enum: ['A', 'B'] },
    };

    it('passes an added optional field: the object stays open', () => {
      const current = result({ ...RESULT, extra: { type: ['string', 'null'] } }, ['listId']);
      expect(breakingChanges(result(RESULT, ['listId']), current, 'outbound')).toEqual([]);
    });

    it.each<[string, JsonSchema, string[], object]>([
      [
        'a removed field',
        { count: RESULT.count, code: RESULT.code },
        ['count'],
        { path: 'listId', change: 'required by published, not by current' },
      ],
      [
        'a field made optional',
        RESULT,
        [],
        { path: 'listId', change: 'required by published, not by current' },
      ],
      [
        'a removed optional field',
        { listId: RESULT.listId, count: RESULT.count },
        ['listId'],
        { path: 'code', change: 'declared by published, not by current' },
      ],
      [
        'a widened type',
        { ...RESULT, count: { type: 'number' } },
        ['listId'],
        { path: 'count', change: 'type: current allows number, published only integer' },
      ],
      [
        'a widened enum',
        { ...RESULT, code: { enum: ['A', 'B', 'C'] } },
        ['listId'],
        { path: 'code', change: 'enum: current allows ["C"], published does not' },
      ],
    ])('fails on %s', (_kind, properties, required, expected) => {
      expect(
        breakingChanges(result(RESULT, ['listId']), result(properties, required), 'outbound'),
      ).toContainEqual(expected);
    });
  });

  describe('a format published as the pattern it implies', () => {
    const at = (keywords: JsonSchema) =>
      event({ ...DATA, placedAt: { type: 'string', ...keywords } }, ['email', 'placedAt']);

    it('passes: every value of format iso8601 matches its pattern', () => {
      expect(
        breakingChanges(at({ format: 'iso8601' }), at({ pattern: ISO8601_PATTERN }), 'inbound'),
      ).toEqual([]);
    });

    it('fails for any other pattern', () => {
      expect(
        breakingChanges(at({ format: 'iso8601' }), at({ pattern: '^\\d{4}$' }), 'inbound'),
      ).toHaveLength(1);
    });
  });
});
