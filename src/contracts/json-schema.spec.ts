import { INBOUND_CONTRACTS } from './inbound-contracts';
import { Type } from 'class-transformer';
import { IsArray, IsObject, IsOptional, IsString, ValidateNested } from 'class-validator';
import { INBOUND_SCHEMAS, lenientPaths, schemasOf, type JsonSchema } from './json-schema';
import { LENIENT_KEYWORD, ruleOf } from './json-schema-rules';
import { Lenient } from './lenient';
import { TIME_ZONE_MAX_LENGTH } from './time-zone';

/** Every object schema in `schema`, at any depth, with where it is. */
function* objectSchemas(schema: unknown, at = '#'): Generator<[string, JsonSchema]> {
  if (typeof schema !== 'object' || schema === null) return;
  const s = schema as JsonSchema;
  if (s.properties) yield [at, s];
  for (const [key, child] of Object.entries(s)) yield* objectSchemas(child, `${at}/${key}`);
}

describe('INBOUND_SCHEMAS', () => {
  it('has one schema per inbound type, each self-contained', () => {
    expect(Object.keys(INBOUND_SCHEMAS)).toEqual(Object.keys(INBOUND_CONTRACTS));
    for (const schema of Object.values(INBOUND_SCHEMAS)) {
      const refs = [...JSON.stringify(schema).matchAll(/"\$ref":"#\/definitions\/([^"]+)"/g)];
      const definitions = schema.definitions as Record<string, unknown>;
      for (const [, name] of refs) expect(definitions).toHaveProperty([name]);
    }
  });

  it('refuses unknown properties in every declared object', () => {
    for (const schema of Object.values(INBOUND_SCHEMAS)) {
      for (const [, object] of objectSchemas(schema)) {
        expect(object.additionalProperties).toBe(false);
      }
    }
  });

  it('lets an optional property be null, as @IsOptional() does, and a required one not', () => {
    const order = INBOUND_SCHEMAS['order.placed.v1'];
    const customer = (order.definitions as Record<string, JsonSchema>).OrderCustomer;
    const properties = customer.properties as Record<string, JsonSchema>;
    expect(customer.required).toEqual(['email', 'firstName']);
    expect(properties.lastName.type).toEqual(['string', 'null']);
    expect(properties.address).toEqual({
      anyOf: [{ $ref: '#/definitions/OrderAddress' }, { type: 'null' }],
    });
    expect(properties.email.type).toBe('string');
  });

  it('states the rules in standard keywords where JSON Schema can', () => {
    const signup = INBOUND_SCHEMAS['user.signed_up.v1'];
    const data = (signup.definitions as Record<string, JsonSchema>).UserSignedUpV1Data;
    expect((data.properties as Record<string, JsonSchema>).email).toMatchObject({
      type: 'string',
      format: 'email',
      maxLength: 320,
      pattern: expect.stringMatching(/^\^\[\^/) as unknown,
      not: { pattern: expect.any(String) as unknown },
    });
  });
});

describe('@Lenient()', () => {
  const data = (type: string, name: string) =>
    (INBOUND_SCHEMAS[type].definitions as Record<string, JsonSchema>)[name];

  it('marks the lenient properties x-lenient, beside their rules', () => {
    const customer = data('order.placed.v1', 'OrderCustomer').properties as Record<
      string,
      JsonSchema
    >;
    expect(customer.timeZone).toMatchObject({
      type: ['string', 'null'],
      maxLength: TIME_ZONE_MAX_LENGTH,
      [LENIENT_KEYWORD]: true,
    });
    expect(customer.firstName).not.toHaveProperty([LENIENT_KEYWORD]);
    expect(lenientPaths(INBOUND_SCHEMAS['order.placed.v1'])).toEqual([
      'data.customer.locale',
      'data.customer.timeZone',
    ]);
    expect(lenientPaths(INBOUND_SCHEMAS['user.signed_up.v1'])).toEqual([
      'data.locale',
      'data.timeZone',
    ]);
    expect(lenientPaths(INBOUND_SCHEMAS['email.campaign.requested.v1'])).toEqual([]);
  });

  it('is refused on a required property, or one that is not a single scalar type', () => {
    class Required {
      @IsString() @Lenient() locale!: string;
    }
    class Nested {
      @IsOptional() @IsString() name?: string;
    }
    class NotScalar {
      @IsOptional() @IsArray() @Lenient() tags?: string[];

      @IsOptional() @IsObject() @ValidateNested() @Type(() => Nested) nested?: Nested;
    }
    expect(() => schemasOf({ r: Required }, { closed: true })).toThrow(
      'Required.locale: @Lenient() needs @IsOptional()',
    );
    expect(() => schemasOf({ n: NotScalar }, { closed: true })).toThrow(
      'NotScalar.tags: @Lenient() is for a string, number or boolean property',
    );
  });
});

describe(ruleOf.name, () => {
  it.each([
    [['format'], 'email', 'isEmail'],
    [['minimum'], undefined, 'min'],
    [['type'], 'integer', 'isInt'],
    [['items', 'maxLength'], undefined, 'maxLength'],
    [['additionalProperties', 'pattern'], '^x$', 'isStringMap'],
    [['pattern'], '^\\d{1,12}(\\.\\d{1,4})?$', 'matches'],
  ])('names %j (%s) after the class-validator rule %s', (path, detail, rule) => {
    expect(ruleOf(path, detail)).toBe(rule);
  });
});
