import { contractSchemas, type ContractSchema } from './contract-schemas';
import { contentProblems, evolutionProblems, nextVersion } from './schema-evolution';
import type { JsonSchema } from './json-schema';

const current = contractSchemas();
const publishedNow = () => new Map(current.map((c) => [c.name, structuredClone(c.schema)]));

describe(evolutionProblems.name, () => {
  it('passes when the published snapshots are the current schemas', () => {
    expect(evolutionProblems(current, publishedNow())).toEqual([]);
  });

  it('fails a field removed from a published command, and says to add a new version', () => {
    const published = publishedNow();
    const campaign = published.get('email.campaign.requested.v1')!;
    const data = (campaign.definitions as Record<string, JsonSchema>).CampaignRequestDto;
    (data.properties as Record<string, JsonSchema>).referrer = { type: ['string', 'null'] };
    const [problem, ...rest] = evolutionProblems(current, published);
    expect(rest).toEqual([]);
    expect(problem).toContain(
      'email.campaign.requested.v1 (a command to mailbridge, read strictly',
    );
    expect(problem).toContain('a breaking change to a published version');
    expect(problem).toContain('- data.referrer: allowed by published, refused by current');
    expect(problem).toContain('add a new version, email.campaign.requested.v2');
  });

  it('lets a domain event drop a field (its reader ignores it now), not tighten one', () => {
    const published = publishedNow();
    const signup = published.get('user.signed_up.v1')!;
    const data = (signup.definitions as Record<string, JsonSchema>).UserSignedUpV1Data;
    (data.properties as Record<string, JsonSchema>).referrer = { type: ['string', 'null'] };
    expect(evolutionProblems(current, published)).toEqual([]);
    (data.properties as Record<string, JsonSchema>).name = { type: 'string' };
    const [problem, ...rest] = evolutionProblems(current, published);
    expect(rest).toEqual([]);
    expect(problem).toContain('user.signed_up.v1 (a domain event, read tolerantly');
    expect(problem).toContain('- data.name: maxLength current 200, published none');
  });

  it('fails a published result field that may now be missing', () => {
    const published = publishedNow();
    (published.get('email.campaign.sent.v1')!.required as string[]).push('deliveredAt');
    expect(evolutionProblems(current, published)).toEqual([
      expect.stringContaining('- deliveredAt: required by published, not by current'),
    ]);
  });

  it('fails a schema without a snapshot and a snapshot without a schema', () => {
    const published = publishedNow();
    published.delete('order.placed.v1');
    published.set('order.cancelled.v1', { type: 'object' });
    expect(evolutionProblems(current, published)).toEqual([
      expect.stringContaining('order.cancelled.v1 is published'),
      expect.stringContaining('order.placed.v1 has no published snapshot'),
    ]);
  });
});

/** The definitions (the classes of `data`) of a schema. */
const definitionsOf = (schema: JsonSchema) => schema.definitions as Record<string, JsonSchema>;
const named = (name: string): ContractSchema => current.find((c) => c.name === name)!;

describe('what each schema promises', () => {
  it('is stated per type: domain events, commands, results', () => {
    expect(Object.fromEntries(current.map((c) => [c.name, c.promise]))).toEqual({
      'user.signed_up.v1': 'domain-event',
      'order.placed.v1': 'domain-event',
      'email.campaign.requested.v1': 'command',
      'email.contact_list.requested.v1': 'command',
      'email.suppression.requested.v1': 'command',
      'email.campaign.sent.v1': 'result',
      'email.contact_list.created.v1': 'result',
      'email.dispatch.failed.v1': 'result',
      'email.unsubscribed.v1': 'result',
      'result-cloudevent.v1': 'result',
      'dead-letter-headers.v1': 'result',
    });
  });

  it('is kept by every current schema', () => {
    expect(current.flatMap((c) => contentProblems(c.name, c.promise, c.schema))).toEqual([]);
  });

  it('knows which fields are lenient, and fails one made strict again', () => {
    expect(named('order.placed.v1').lenient).toEqual([
      'data.customer.locale',
      'data.customer.timeZone',
    ]);
    expect(evolutionProblems(current, publishedNow())).toEqual([]);
    const strict = { ...structuredClone(named('user.signed_up.v1')), lenient: ['data.timeZone'] };
    expect(evolutionProblems([strict], publishedNow())).toContainEqual(
      'user.signed_up.v1: data.locale is lenient in the published version (a value that does ' +
        'not fit is ignored) but not in the current one, which would refuse such an event: keep ' +
        '@Lenient(), or add a new version, user.signed_up.v2.',
    );
  });

  it('fails a domain event whose data refuses unknown fields at any depth', () => {
    const { name, promise, schema } = structuredClone(named('order.placed.v1'));
    definitionsOf(schema).OrderAddress.additionalProperties = false;
    expect(contentProblems(name, promise, schema)).toEqual([
      expect.stringContaining('OrderAddress (in data) refuses unknown fields'),
    ]);
  });

  it('fails a command whose data allows unknown fields at any depth', () => {
    const { name, promise, schema } = structuredClone(named('email.campaign.requested.v1'));
    const [first] = Object.keys(definitionsOf(schema));
    delete definitionsOf(schema)[first].additionalProperties;
    expect(contentProblems(name, promise, schema)).toEqual([
      expect.stringContaining(`${first} (in data) allows unknown fields`),
    ]);
  });

  it('fails an inbound envelope closed to extension attributes, or open to anything', () => {
    for (const type of ['user.signed_up.v1', 'email.contact_list.requested.v1']) {
      const closed = structuredClone(named(type));
      delete closed.schema.patternProperties;
      const open = structuredClone(named(type));
      delete open.schema.additionalProperties;
      for (const { name, promise, schema } of [closed, open]) {
        expect(contentProblems(name, promise, schema)).toEqual([
          expect.stringContaining('the envelope is not closed but for CloudEvents extension'),
        ]);
      }
    }
  });

  it('fails a result schema that refuses unknown fields', () => {
    const { name, promise, schema } = structuredClone(named('email.campaign.sent.v1'));
    schema.additionalProperties = false;
    expect(contentProblems(name, promise, schema)).toEqual([
      expect.stringContaining('# refuses unknown fields'),
    ]);
    expect(
      evolutionProblems([{ name, promise, schema, lenient: [] }], publishedNow()),
    ).toContainEqual(expect.stringContaining('subscribers can rely on every published field'));
  });

  it('lets a domain event open its data and its envelope to extensions over a closed published version', () => {
    const published = publishedNow();
    for (const type of ['user.signed_up.v1', 'order.placed.v1']) {
      const schema = published.get(type)!;
      for (const definition of Object.values(definitionsOf(schema))) {
        definition.additionalProperties = false;
      }
      delete schema.patternProperties;
      delete schema.if;
      delete schema.else;
    }
    expect(evolutionProblems(current, published)).toEqual([]);
  });

  it('fails a domain event that closes data a published version left open', () => {
    const order = structuredClone(named('order.placed.v1'));
    definitionsOf(order.schema).OrderItem.additionalProperties = false;
    const problems = evolutionProblems([order], publishedNow());
    expect(problems).toContainEqual(
      expect.stringContaining(
        '- data.items[]: unknown properties: published allows them, current refuses them',
      ),
    );
  });

  it('fails an envelope that drops the extension attributes a published version allowed', () => {
    const signup = structuredClone(named('user.signed_up.v1'));
    delete signup.schema.patternProperties;
    const problems = evolutionProblems([signup], publishedNow());
    expect(problems).toContainEqual(expect.stringContaining('patternProperties changed'));
  });
});

describe(nextVersion.name, () => {
  it.each([
    ['user.signed_up.v1', 'user.signed_up.v2'],
    ['result-cloudevent.v9', 'result-cloudevent.v10'],
  ])('%s → %s', (name, next) => expect(nextVersion(name)).toBe(next));
});
