import type { ValidateFunction } from 'ajv';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { HOSTILE_CORPUS } from '../../test/hostile/corpus';
import { CORPUS_PARSE_OPTIONS, corpusRecord } from '../../test/hostile/corpus-parsing';
import { FULL_EVENTS } from '../../test/hostile/full-events';
import {
  ENCODINGS,
  TOPICS,
  encode,
  type CorpusEvent,
  type CorpusTopic,
  type Encoding,
  type ProducedRecord,
} from '../../test/hostile/valid-events';
import { INBOUND_CONTRACTS } from '../contracts/inbound-contracts';
import { contractAjv } from '../contracts/json-schema-rules';
import type { JsonSchema } from '../contracts/json-schema';
import { eventOf, readEvent } from './event.parser';

/*
 * The published schemas (`schemas/<type>.json`, what producers validate against) say what the
 * service does: every record that reaches the contract check is accepted by one exactly when it
 * is by the other. Domain events' unknown data fields pass both, commands' neither, and an
 * extension attribute passes both in a CloudEvent and neither in a plain envelope.
 */

const ajv = contractAjv({ strict: true, allErrors: false });
/**
 * Records only the service refuses, by a rule the published schemas cannot say and describe
 * instead (`BEYOND_STANDARD`): one address twice in a command's recipients or members.
 */
const BEYOND_STANDARD_CASE = /^duplicate (recipients|members)\b.*: service false$/;
const published = new Map<string, JsonSchema>(
  Object.keys(INBOUND_CONTRACTS).map((type) => [
    type,
    JSON.parse(
      readFileSync(join(__dirname, '../../schemas', `${type}.json`), 'utf8'),
    ) as JsonSchema,
  ]),
);
for (const schema of published.values()) ajv.addSchema(schema);

/**
 * The published schema's verdict on a record: the whole event; in binary mode its value against
 * the data definition, and the event its `ce_` headers and value make against the whole schema.
 */
function schemaAccepts(type: string, record: ProducedRecord): boolean {
  const schema = published.get(type)!;
  const value = JSON.parse(record.value!.toString()) as unknown;
  const whole = ajv.getSchema(schema.$id as string) as ValidateFunction;
  const ce = Object.entries(record.headers ?? {}).filter(([h]) => h.startsWith('ce_'));
  if (ce.length === 0) return whole(value);
  const data = (schema.properties as Record<string, JsonSchema>).data.$ref as string;
  const attributes = Object.fromEntries(ce.map(([h, v]) => [h.slice(3), String(v)]));
  return (
    (ajv.getSchema(`${schema.$id as string}${data}`) as ValidateFunction)(value) &&
    whole({ ...attributes, data: value })
  );
}

/** The service's verdict, for a record that reaches the contract check; else undefined. */
function serviceAccepts(topic: string, record: ProducedRecord): [string, boolean] | undefined {
  const consumed = corpusRecord({ topic, value: record.value, headers: record.headers });
  let type: string;
  try {
    type = readEvent(consumed, CORPUS_PARSE_OPTIONS).type;
  } catch {
    return undefined; // refused before the contract: bytes, limits, CloudEvents attributes
  }
  try {
    eventOf(consumed, CORPUS_PARSE_OPTIONS);
    return [type, true];
  } catch {
    return [type, false];
  }
}

function withChange(
  topic: CorpusTopic,
  encoding: Encoding,
  change: (event: CorpusEvent & Record<string, unknown>) => void,
): ProducedRecord {
  const event = structuredClone(FULL_EVENTS[topic]) as unknown as CorpusEvent &
    Record<string, unknown>;
  delete event.specversion;
  delete event.datacontenttype;
  change(event);
  return encode(event, encoding);
}

/** Records the corpus lacks: unknown fields at each depth, extension attributes. */
const CASES: Array<[string, CorpusTopic, ProducedRecord, boolean]> = ENCODINGS.flatMap(
  (encoding) => [
    ...TOPICS.flatMap((topic): Array<[string, CorpusTopic, ProducedRecord, boolean]> => {
      const tolerant = topic === 'signup' || topic === 'order';
      return [
        [
          `${topic} ${encoding}, unknown data field`,
          topic,
          withChange(topic, encoding, (e) => {
            e.data.referralCode = 'r-1';
          }),
          tolerant,
        ],
        [
          `${topic} ${encoding}, unknown nested data field`,
          topic,
          withChange(topic, encoding, (e) => {
            const d = e.data;
            const at = (...path: Array<string | number>): unknown =>
              path.reduce<unknown>((v, k) => (v as Record<string | number, unknown>)?.[k], d);
            const nested = (at('customer', 'address') ??
              at('recipients', 'to', 0) ??
              at('members', 0) ??
              d) as Record<string, unknown>;
            nested.geo = { lat: 1 };
          }),
          tolerant,
        ],
      ];
    }),
  ],
).concat([
  [
    'order structured, extension attribute',
    'order',
    withChange('order', 'structured', (e) => {
      e.specversion = '1.0';
      e.tenant = 'eu-1';
      e.priority = 3;
    }),
    true,
  ],
  [
    'campaign structured, extension attribute',
    'campaign',
    withChange('campaign', 'structured', (e) => {
      e.tenant = 'eu-1';
    }),
    true,
  ],
  [
    'signup plain, extension-like member',
    'signup',
    withChange('signup', 'plain', (e) => {
      e.tenant = 'eu-1';
    }),
    false,
  ],
]);

describe('the published inbound schemas and the service', () => {
  it.each(CASES)('agree: %s', (_name, topic, record, expected) => {
    const service = serviceAccepts(topic, record);
    expect(service).toBeDefined();
    const [type, accepted] = service!;
    expect([accepted, schemaAccepts(type, record)]).toEqual([expected, expected]);
  });

  it('agree on every record of the hostile corpus that reaches the contract check', () => {
    const disagreements: string[] = [];
    let compared = 0;
    for (const c of HOSTILE_CORPUS) {
      const service = serviceAccepts(c.topic, c);
      if (!service) continue;
      compared += 1;
      const [type, accepted] = service;
      if (schemaAccepts(type, c) !== accepted) disagreements.push(`${c.kind}: service ${accepted}`);
    }
    expect(compared).toBeGreaterThan(HOSTILE_CORPUS.length / 2);
    // Only what no standard keyword can say, and the schema's description says instead.
    expect(disagreements.filter((d) => !BEYOND_STANDARD_CASE.test(d))).toEqual([]);
    expect(disagreements.length).toBeGreaterThan(0);
  });
});
