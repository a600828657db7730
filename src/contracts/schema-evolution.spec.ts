import { contractSchemas } from './contract-schemas';
import { evolutionProblems, nextVersion } from './schema-evolution';
import type { JsonSchema } from './json-schema';

const current = contractSchemas();
const publishedNow = () => new Map(current.map((c) => [c.name, structuredClone(c.schema)]));

describe(evolutionProblems.name, () => {
  it('passes when the published snapshots are the current schemas', () => {
    expect(evolutionProblems(current, publishedNow())).toEqual([]);
  });

  it('fails a field removed from a published inbound type, and says to add a new version', () => {
    const published = publishedNow();
    const signup = published.get('user.signed_up.v1')!;
    const data = (signup.definitions as Record<string, JsonSchema>).UserSignedUpV1Data;
    (data.properties as Record<string, JsonSchema>).referrer = { type: ['string', 'null'] };
    const [problem, ...rest] = evolutionProblems(current, published);
    expect(rest).toEqual([]);
    expect(problem).toContain('user.signed_up.v1: a breaking change to a published version');
    expect(problem).toContain('- data.referrer: allowed by published, refused by current');
    expect(problem).toContain('add a new version, user.signed_up.v2');
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

describe(nextVersion.name, () => {
  it.each([
    ['user.signed_up.v1', 'user.signed_up.v2'],
    ['result-cloudevent.v9', 'result-cloudevent.v10'],
  ])('%s → %s', (name, next) => expect(nextVersion(name)).toBe(next));
});
