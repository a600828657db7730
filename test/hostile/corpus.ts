/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment,
   @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-explicit-any --
   each case reaches into an event's JSON to break it on purpose; typing every path would bury
   the one change that matters. */
import type { InvalidEventCode } from '../../src/inbound/invalid-event.error';
import {
  ENCODINGS,
  EVENT_OF,
  TOPICS,
  TYPE_OF,
  encode,
  json,
  type CorpusEvent,
  type CorpusTopic,
  type Encoding,
  type ProducedRecord,
} from './valid-events';

/**
 * Hostile and bad input, one record per kind, with what mailbridge must make of it: a dead
 * letter with a given code, or a valid event that is sent. Data only (bytes, headers, the topic
 * role), so that the same records can be produced as raw bytes to a real broker.
 *
 * The OVERSIZED and TOO_COMPLEX cases assume MAX_EVENT_BYTES at its default,
 * {@link CORPUS_MAX_EVENT_BYTES}: with a larger limit the OVERSIZED ones are read (and most then
 * fail otherwise); with a smaller one, some of the large cases become OVERSIZED.
 */
export interface HostileCase extends ProducedRecord {
  kind: string;
  /** The inbound topic, by role, the record is produced to. */
  topic: CorpusTopic;
  expect: { deadLetter: InvalidEventCode } | { valid: true };
}

/** MAX_EVENT_BYTES's default (config, not this corpus's choice). */
export const CORPUS_MAX_EVENT_BYTES = 262_144;

const cases: HostileCase[] = [];
let serial = 0;
const nextId = () => `hostile-${++serial}`;

function add(
  kind: string,
  topic: CorpusTopic,
  record: ProducedRecord,
  expect: InvalidEventCode | 'valid',
): void {
  cases.push({
    kind,
    topic,
    ...record,
    expect: expect === 'valid' ? { valid: true } : { deadLetter: expect },
  });
}

/** A valid event of `topic`'s type, changed by `change`, encoded as `encoding`. */
function mutated(
  topic: CorpusTopic,
  encoding: Encoding,
  change: (event: CorpusEvent & Record<string, unknown>) => void = () => undefined,
): ProducedRecord {
  const event = EVENT_OF[topic](nextId()) as CorpusEvent & Record<string, unknown>;
  change(event);
  const record = encode(event, encoding);
  return { ...record, value: Buffer.from(expandNesting(record.value!.toString())) };
}

/** Shortcut for `data` changes, the most common kind. */
type Data = Record<string, any>;
function withData(topic: CorpusTopic, change: (data: Data) => void, encoding: Encoding = 'plain') {
  return mutated(topic, encoding, (e) => change(e.data));
}

function rawValue(value: Buffer | string | null, headers?: ProducedRecord['headers']) {
  return { value: typeof value === 'string' ? Buffer.from(value) : value, headers, key: null };
}

/** A valid plain-envelope record whose JSON text is edited before it is sent. */
function editedJson(topic: CorpusTopic, edit: (text: string) => string): ProducedRecord {
  const record = mutated(topic, 'plain');
  return { ...record, value: Buffer.from(edit(record.value!.toString())) };
}

/**
 * An object nested `depth` levels deep. JSON.stringify itself recurses, so the nesting is a
 * marker in the value that {@link mutated} expands in the encoded text.
 */
function nested(depth: number): string {
  return `@@nested:${depth}@@`;
}

function expandNesting(text: string): string {
  return text.replace(/"@@nested:(\d+)@@"/g, (_, depth: string) => {
    const n = Number(depth);
    return `${'{"a":'.repeat(n - 1)}{"a":"leaf"}${'}'.repeat(n - 1)}`;
  });
}

// Valid: every type in every encoding, and content that looks odd but is legitimate.
for (const topic of TOPICS) {
  for (const encoding of ENCODINGS)
    add(`valid ${topic} as ${encoding}`, topic, mutated(topic, encoding), 'valid');
}
add(
  'valid: name with accents and emoji',
  'signup',
  withData('signup', (d) => (d.name = 'Zoë Ålänð-Żółć 🎉')),
  'valid',
);
add(
  'valid: CJK and RTL names',
  'contactList',
  withData('contactList', (d) => {
    d.members[0].firstName = '李小龍';
    d.members[1].firstName = 'مريم';
  }),
  'valid',
);
add(
  'valid: names that need zero-width joiners (Persian, an emoji family)',
  'contactList',
  withData('contactList', (d) => {
    d.members[0].firstName = '\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645';
    d.members[1].firstName = 'Bob \u{1F468}\u200D\u{1F469}\u200D\u{1F467}';
  }),
  'valid',
);
add(
  'valid: an order placed two hours ahead of the clock (goes into the current window)',
  'order',
  withData('order', (d) => {
    d.placedAt = new Date(Date.now() + 2 * 3_600_000).toISOString();
  }),
  'valid',
);
add(
  'valid: body with newlines, tabs and joiners',
  'campaign',
  withData('campaign', (d) => {
    d.body =
      '<html>\r\n<body>\n\t<p>Hello\u00A0{{FIRST_NAME}}</p>\n\t<p>می\u200Cخواهم</p>\n</body>\n</html>';
  }),
  'valid',
);
add(
  'valid: emoji escaped as a surrogate pair',
  'signup',
  editedJson('signup', (t) => t.replace('Ada Lovelace', 'Ada \\ud83d\\ude00')),
  'valid',
);
add(
  'valid: upper-case letters in an address',
  'signup',
  withData('signup', (d) => (d.email = 'Ada.Lovelace@Example.COM')),
  'valid',
);
add(
  'valid: time with fraction and offset',
  'order',
  mutated('order', 'plain', (e) => (e.time = '2026-11-21T10:00:00.123+02:00')),
  'valid',
);
add(
  'valid: CloudEvents extensions, subject and dataschema',
  'order',
  mutated('order', 'structured', (e) => {
    Object.assign(e, {
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      partitionkey: 'k1',
      sampled: true,
      retries: 3,
    });
    Object.assign(e, {
      subject: 'Order#1',
      dataschema: 'https://schemas.example.com/order.placed.v1.json',
    });
  }),
  'valid',
);
add(
  'valid: binary mode with an extension header',
  'signup',
  ((r) => ({
    ...r,
    headers: {
      ...r.headers,
      ce_traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    },
  }))(mutated('signup', 'binary')),
  'valid',
);
add(
  'valid: content-type with charset=utf-8',
  'signup',
  ((r) => ({ ...r, headers: { 'content-type': 'application/json; charset=utf-8' } }))(
    mutated('signup', 'plain'),
  ),
  'valid',
);
add(
  'valid: campaign with 10,000 recipients',
  'campaign',
  withData('campaign', (d) => {
    d.recipients.to = Array.from({ length: 10_000 }, (_, i) => ({ email: `r${i}@x.io` }));
  }),
  'valid',
);

// Not an event at all.
add('empty value', 'signup', rawValue(Buffer.alloc(0)), 'UNPARSEABLE');
add('null value (tombstone)', 'order', rawValue(null), 'UNPARSEABLE');
add('not JSON', 'signup', rawValue('hello, world'), 'UNPARSEABLE');
add('whitespace only', 'signup', rawValue('  \n '), 'UNPARSEABLE');
for (const scalar of ['42', '"user.signed_up.v1"', 'true', 'null'])
  add(`JSON scalar ${scalar}`, 'signup', rawValue(scalar), 'UNPARSEABLE');
add('JSON empty array', 'signup', rawValue('[]'), 'UNPARSEABLE');
add(
  'JSON array holding a valid event',
  'signup',
  rawValue(`[${mutated('signup', 'plain').value!.toString()}]`),
  'UNPARSEABLE',
);
for (const encoding of ENCODINGS) {
  add(
    `truncated JSON (${encoding})`,
    'order',
    ((r) => ({ ...r, value: r.value!.subarray(0, r.value!.length / 2) }))(
      mutated('order', encoding),
    ),
    'UNPARSEABLE',
  );
}
add(
  'two JSON objects back to back',
  'signup',
  editedJson('signup', (t) => t + t),
  'UNPARSEABLE',
);
add(
  'trailing garbage after JSON',
  'signup',
  editedJson('signup', (t) => `${t} x`),
  'UNPARSEABLE',
);
add(
  'JSON with a comment',
  'signup',
  editedJson('signup', (t) => `// hi\n${t}`),
  'UNPARSEABLE',
);
add(
  'single-quoted pseudo-JSON',
  'signup',
  editedJson('signup', (t) => t.replaceAll('"', "'")),
  'UNPARSEABLE',
);
add(
  'NaN as a number',
  'order',
  editedJson('order', (t) => t.replace('"quantity":2', '"quantity":NaN')),
  'UNPARSEABLE',
);

// Size and shape: bounded before anything recursive runs.
add(
  'oversized value (300 KB)',
  'signup',
  withData('signup', (d) => (d.name = 'x'.repeat(300_000))),
  'OVERSIZED',
);
add(
  'oversized binary-mode value',
  'campaign',
  withData('campaign', (d) => (d.body = 'x'.repeat(300_000)), 'binary'),
  'OVERSIZED',
);
add(
  'object nested 10,000 deep in data',
  'signup',
  withData('signup', (d) => (d.profile = nested(10_000))),
  'TOO_COMPLEX',
);
add(
  'object nested 10,000 deep in an attribute',
  'campaign',
  withData('campaign', (d) => (d.recipients.to[0].attributes.DEEP = nested(10_000))),
  'TOO_COMPLEX',
);
add(
  'object nested 10,000 deep in binary-mode data',
  'order',
  withData('order', (d) => (d.customer.address.more = nested(10_000)), 'binary'),
  'TOO_COMPLEX',
);
add(
  'object nested 10,000 deep in an extension',
  'signup',
  mutated('signup', 'structured', (e) => (e.deep = nested(10_000))),
  'TOO_COMPLEX',
);
add(
  'arrays nested 100,000 deep as the value',
  'signup',
  rawValue('['.repeat(100_000) + ']'.repeat(100_000)),
  'TOO_COMPLEX',
);
add(
  'nesting one level past the limit (33)',
  'signup',
  withData('signup', (d) => (d.profile = nested(31))),
  'TOO_COMPLEX',
);
add(
  '100,001 array elements',
  'campaign',
  withData('campaign', (d) => (d.recipients.to = new Array(100_001).fill(0))),
  'TOO_COMPLEX',
);
add(
  'nesting at the limit (32) is read, then refused as unknown (a command)',
  'campaign',
  withData('campaign', (d) => (d.profile = nested(30))),
  'UNKNOWN_FIELD',
);
add(
  'nesting at the limit (32) is read, then ignored as unknown (a domain event)',
  'signup',
  withData('signup', (d) => (d.profile = nested(30))),
  'valid',
);
add(
  '10,001 recipients',
  'campaign',
  withData('campaign', (d) => {
    d.recipients.to = Array.from({ length: 10_001 }, (_, i) => ({ email: `r${i}@x.io` }));
  }),
  'INVALID',
);
add(
  'no recipients',
  'campaign',
  withData('campaign', (d) => (d.recipients.to = [])),
  'INVALID',
);
add(
  '501 order items',
  'order',
  withData('order', (d) => (d.items = Array.from({ length: 501 }, () => d.items[0]))),
  'INVALID',
);
add(
  'no order items',
  'order',
  withData('order', (d) => (d.items = [])),
  'INVALID',
);
add(
  '101 tags on a member',
  'contactList',
  withData(
    'contactList',
    (d) => (d.members[0].tags = Array.from({ length: 101 }, (_, i) => `t${i}`)),
  ),
  'INVALID',
);
add(
  '101 attributes on a recipient',
  'campaign',
  withData('campaign', (d) => {
    d.recipients.to[0].attributes = Object.fromEntries(
      Array.from({ length: 101 }, (_, i) => [`K${i}`, 'v']),
    );
  }),
  'INVALID',
);

// Bytes that are not UTF-8, or text that is not Unicode: refused, never repaired.
const BAD_UTF8: Array<[string, number[]]> = [
  ['a stray 0xFF byte', [0xff]],
  ['an overlong encoding of "/"', [0xc0, 0xaf]],
  ['an encoded surrogate (CESU-8)', [0xed, 0xa0, 0x80]],
  ['Latin-1 "é"', [0xe9]],
];
for (const [what, bytes] of BAD_UTF8) {
  for (const encoding of ENCODINGS) {
    const record = mutated('signup', encoding, (e) => (e.data.name = 'Ada\u0000'));
    const text = record.value!.toString();
    const at = text.indexOf('\\u0000');
    const value = Buffer.concat([
      Buffer.from(text.slice(0, at)),
      Buffer.from(bytes),
      Buffer.from(text.slice(at + 6)),
    ]);
    add(`value with ${what} (${encoding})`, 'signup', { ...record, value }, 'INVALID_ENCODING');
  }
}
add(
  'value ending inside a multi-byte character',
  'signup',
  ((r) => ({ ...r, value: Buffer.concat([r.value!, Buffer.from([0xe2, 0x82])]) }))(
    mutated('signup', 'plain'),
  ),
  'INVALID_ENCODING',
);
add(
  'leading byte-order mark (plain)',
  'signup',
  ((r) => ({ ...r, value: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), r.value!]) }))(
    mutated('signup', 'plain'),
  ),
  'INVALID_ENCODING',
);
add(
  'leading byte-order mark (binary data)',
  'order',
  ((r) => ({ ...r, value: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), r.value!]) }))(
    mutated('order', 'binary'),
  ),
  'INVALID_ENCODING',
);
for (const header of ['ce_id', 'ce_type', 'ce_source', 'content-type']) {
  const record = mutated('signup', 'binary');
  const headers = {
    ...record.headers,
    [header]: Buffer.concat([
      Buffer.from(String(record.headers![header])),
      Buffer.from([0xff, 0xfe]),
    ]),
  };
  add(`invalid UTF-8 in header ${header}`, 'signup', { ...record, headers }, 'INVALID_ENCODING');
}
add(
  'overlong UTF-8 in header ce_id',
  'signup',
  ((r) => ({ ...r, headers: { ...r.headers, ce_id: Buffer.from([0x61, 0xc1, 0x81]) } }))(
    mutated('signup', 'binary'),
  ),
  'INVALID_ENCODING',
);
add(
  'lone high surrogate escaped in a name',
  'signup',
  editedJson('signup', (t) => t.replace('Ada Lovelace', 'Ada \\ud800')),
  'INVALID_ENCODING',
);
add(
  'lone low surrogate escaped in the id',
  'signup',
  editedJson('signup', (t) => t.replace('"id":"hostile-', '"id":"\\udc00hostile-')),
  'INVALID_ENCODING',
);
add(
  'lone surrogate escaped in a field name',
  'order',
  editedJson('order', (t) => t.replace('"data":{', '"data":{"\\ud800":1,')),
  'INVALID_ENCODING',
);

// The envelope, in each encoding.
const CE_CODE = {
  plain: 'INVALID',
  structured: 'INVALID_CLOUDEVENT',
  binary: 'INVALID_CLOUDEVENT',
} as const;
for (const encoding of ENCODINGS) {
  add(
    `missing id (${encoding})`,
    'signup',
    mutated('signup', encoding, (e) => delete (e as Partial<CorpusEvent>).id),
    CE_CODE[encoding],
  );
  add(
    `empty id (${encoding})`,
    'order',
    mutated('order', encoding, (e) => (e.id = '')),
    CE_CODE[encoding],
  );
  add(
    `missing type (${encoding})`,
    'signup',
    mutated('signup', encoding, (e) => delete (e as Partial<CorpusEvent>).type),
    encoding === 'plain' ? 'UNKNOWN_TYPE' : 'INVALID_CLOUDEVENT',
  );
  // CloudEvents makes time optional; mailbridge's contracts require it.
  add(
    `missing time (${encoding})`,
    'campaign',
    mutated('campaign', encoding, (e) => delete (e as Partial<CorpusEvent>).time),
    'INVALID',
  );
  add(
    `time that is not RFC 3339 (${encoding})`,
    'signup',
    mutated('signup', encoding, (e) => (e.time = '2026-11-21')),
    CE_CODE[encoding],
  );
  add(
    `id with CRLF (${encoding})`,
    'contactList',
    mutated('contactList', encoding, (e) => (e.id = 'evt-1\r\nX-Injected: 1')),
    CE_CODE[encoding],
  );
  add(
    `unknown type (${encoding})`,
    'signup',
    mutated('signup', encoding, (e) => (e.type = 'user.deleted.v1')),
    'UNKNOWN_TYPE',
  );
}
add(
  'missing data (plain)',
  'signup',
  mutated('signup', 'plain', (e) => delete (e as Partial<CorpusEvent>).data),
  'INVALID',
);
add(
  'missing data (structured)',
  'order',
  mutated('order', 'structured', (e) => delete (e as Partial<CorpusEvent>).data),
  'INVALID',
);
add(
  'number id',
  'signup',
  editedJson('signup', (t) => t.replace(/"id":"[^"]*"/, '"id":12345')),
  'INVALID',
);
add(
  'number id (structured)',
  'signup',
  ((r) => ({
    ...r,
    value: Buffer.from(r.value!.toString().replace(/"id":"[^"]*"/, '"id":12345')),
  }))(mutated('signup', 'structured')),
  'INVALID_CLOUDEVENT',
);
add(
  'id of 201 characters',
  'signup',
  mutated('signup', 'plain', (e) => (e.id = 'i'.repeat(201))),
  'INVALID',
);
add(
  'id with a zero-width space',
  'signup',
  mutated('signup', 'plain', (e) => (e.id = `evt\u200B${e.id}`)),
  'INVALID',
);
add(
  'data is an array',
  'signup',
  mutated('signup', 'plain', (e) => (e.data = [e.data] as unknown as Record<string, unknown>)),
  'INVALID',
);
add(
  'data is a string',
  'order',
  mutated('order', 'plain', (e) => (e.data = 'order' as unknown as Record<string, unknown>)),
  'INVALID',
);
add(
  'binary-mode data is an array',
  'campaign',
  ((r) => ({ ...r, value: json([JSON.parse(r.value!.toString())]) }))(
    mutated('campaign', 'binary'),
  ),
  'INVALID',
);
add(
  'binary-mode data is null',
  'signup',
  ((r) => ({ ...r, value: Buffer.from('null') }))(mutated('signup', 'binary')),
  'INVALID',
);
add(
  'type is a number',
  'signup',
  editedJson('signup', (t) => t.replace('"user.signed_up.v1"', '1')),
  'UNKNOWN_TYPE',
);
for (const type of [
  '__proto__',
  'constructor',
  'toString',
  'USER.SIGNED_UP.V1',
  'user.signed_up.v1 ',
  'user.signed_up.v2',
]) {
  add(
    `type '${type}'`,
    'signup',
    mutated('signup', 'plain', (e) => (e.type = type)),
    'UNKNOWN_TYPE',
  );
}
add(
  'a result type sent as input',
  'campaign',
  mutated('campaign', 'plain', (e) => (e.type = 'email.campaign.sent.v1')),
  'UNKNOWN_TYPE',
);
add(
  'time on 30 February',
  'order',
  mutated('order', 'plain', (e) => (e.time = '2026-02-30T10:00:00Z')),
  'INVALID',
);
add(
  'time without an offset',
  'order',
  mutated('order', 'plain', (e) => (e.time = '2026-11-21T10:00:00')),
  'INVALID',
);

// Each topic accepts its own types only.
for (const topic of TOPICS) {
  for (const other of TOPICS) {
    if (other === topic) continue;
    add(`${TYPE_OF[other]} on the ${topic} topic`, topic, mutated(other, 'plain'), 'WRONG_TOPIC');
  }
}
add(
  'campaign command on the signup topic (binary)',
  'signup',
  mutated('campaign', 'binary'),
  'WRONG_TOPIC',
);
add(
  'contact-list command on the order topic (structured)',
  'order',
  mutated('contactList', 'structured'),
  'WRONG_TOPIC',
);

// CloudEvents 1.0 attributes.
const structured = (
  topic: CorpusTopic,
  change: (e: CorpusEvent & Record<string, unknown>) => void,
) => mutated(topic, 'structured', change);
const withHeaders = (
  record: ProducedRecord,
  headers: Record<string, Buffer | string | undefined>,
) => ({
  ...record,
  headers: Object.fromEntries(
    Object.entries({ ...record.headers, ...headers }).filter(([, v]) => v !== undefined),
  ) as Record<string, Buffer | string>,
});
for (const version of ['0.3', '2.0', '1', '1.0 ', '']) {
  add(
    `specversion '${version}' (structured)`,
    'signup',
    structured('signup', (e) => (e.specversion = version)),
    'INVALID_CLOUDEVENT',
  );
}
add(
  'specversion as the number 1.0',
  'signup',
  ((r) => ({
    ...r,
    value: Buffer.from(r.value!.toString().replace('"specversion":"1.0"', '"specversion":1.0')),
  }))(structured('signup', () => undefined)),
  'INVALID_CLOUDEVENT',
);
add(
  'ce_specversion 0.3 (binary)',
  'order',
  withHeaders(mutated('order', 'binary'), { ce_specversion: '0.3' }),
  'INVALID_CLOUDEVENT',
);
add(
  'ce_specversion 2.0 (binary)',
  'order',
  withHeaders(mutated('order', 'binary'), { ce_specversion: '2.0' }),
  'INVALID_CLOUDEVENT',
);
add(
  'ce_ headers without ce_specversion',
  'signup',
  withHeaders(mutated('signup', 'binary'), { ce_specversion: undefined }),
  'INVALID_CLOUDEVENT',
);
add(
  'structured content-type with ce_ headers',
  'signup',
  withHeaders(mutated('signup', 'binary'), { 'content-type': 'application/cloudevents+json' }),
  'INVALID_CLOUDEVENT',
);
add(
  'structured content-type on a plain envelope',
  'signup',
  withHeaders(mutated('signup', 'plain'), { 'content-type': 'application/cloudevents+json' }),
  'INVALID_CLOUDEVENT',
);
add(
  'missing source (structured)',
  'order',
  structured('order', (e) => delete (e as Partial<CorpusEvent>).source),
  'INVALID_CLOUDEVENT',
);
add(
  'missing ce_source (binary)',
  'order',
  withHeaders(mutated('order', 'binary'), { ce_source: undefined }),
  'INVALID_CLOUDEVENT',
);
for (const [what, source] of [
  ['empty', ''],
  ['with a space', '/my accounts'],
  ['with CRLF', '/a\r\nb'],
  ['with a bad escape', '/a%zz'],
  ['as a number', 7],
] as const) {
  add(
    `source ${what}`,
    'signup',
    structured('signup', (e) => (e.source = source as string)),
    'INVALID_CLOUDEVENT',
  );
}
add(
  'time not RFC 3339 (structured, week date)',
  'order',
  structured('order', (e) => (e.time = '2026-W47-6')),
  'INVALID_CLOUDEVENT',
);
add(
  'empty subject',
  'order',
  structured('order', (e) => (e.subject = '')),
  'INVALID_CLOUDEVENT',
);
add(
  'relative dataschema',
  'order',
  structured('order', (e) => (e.dataschema = '/schemas/order')),
  'INVALID_CLOUDEVENT',
);
add(
  'datacontenttype text/plain (structured)',
  'signup',
  structured('signup', (e) => (e.datacontenttype = 'text/plain')),
  'UNSUPPORTED_CONTENT_TYPE',
);
add(
  'content-type text/plain (binary)',
  'signup',
  withHeaders(mutated('signup', 'binary'), { 'content-type': 'text/plain' }),
  'UNSUPPORTED_CONTENT_TYPE',
);
add(
  'content-type application/xml (plain)',
  'order',
  withHeaders(mutated('order', 'plain'), { 'content-type': 'application/xml' }),
  'UNSUPPORTED_CONTENT_TYPE',
);
add(
  'content-type JSON in Latin-1',
  'order',
  withHeaders(mutated('order', 'plain'), {
    'content-type': 'application/json; charset=iso-8859-1',
  }),
  'UNSUPPORTED_CONTENT_TYPE',
);
add(
  'content-type with CRLF',
  'order',
  withHeaders(mutated('order', 'plain'), { 'content-type': 'application/json\r\nX-Evil: 1' }),
  'UNSUPPORTED_CONTENT_TYPE',
);
for (const [what, name] of [
  ['upper-case', 'Traceparent'],
  ['with an underscore', 'trace_parent'],
  ['of 21 characters', 'a'.repeat(21)],
]) {
  add(
    `extension name ${what}`,
    'signup',
    structured('signup', (e) => (e[name] = 'x')),
    'INVALID_CLOUDEVENT',
  );
}
// Binary data in structured mode: no template takes anything but JSON data.
add(
  'data_base64 (structured)',
  'signup',
  structured('signup', (e) => (e.data_base64 = Buffer.from('{}').toString('base64'))),
  'UNSUPPORTED_CONTENT_TYPE',
);
add(
  'extension holding an object',
  'signup',
  structured('signup', (e) => (e.traceinfo = { a: 1 })),
  'INVALID_CLOUDEVENT',
);
add(
  'extension with a line break',
  'signup',
  structured('signup', (e) => (e.traceinfo = 'a\nb')),
  'INVALID_CLOUDEVENT',
);
add(
  'binary extension header with upper case',
  'signup',
  withHeaders(mutated('signup', 'binary'), { ce_TraceParent: 'x' }),
  'INVALID_CLOUDEVENT',
);
add(
  'binary header ce_data',
  'signup',
  withHeaders(mutated('signup', 'binary'), { ce_data: '{}' }),
  'INVALID_CLOUDEVENT',
);

// Unknown fields: ignored in a domain event's data, refused in a command's and in the envelope;
// names that reach the prototype chain are refused everywhere.
add(
  'unknown top-level field (plain)',
  'signup',
  mutated('signup', 'plain', (e) => (e.extra = true)),
  'UNKNOWN_FIELD',
);
add(
  'unknown top-level field that is no extension name (structured)',
  'order',
  mutated('order', 'structured', (e) => (e.referralCode = 'r-1')),
  'INVALID_CLOUDEVENT',
);
add(
  'unknown top-level field beside an unknown data field (sign-up)',
  'signup',
  mutated('signup', 'plain', (e) => {
    e.extra = true;
    e.data.referralCode = 'r-1';
  }),
  'UNKNOWN_FIELD',
);
add(
  'unknown data field (sign-up), ignored',
  'signup',
  withData('signup', (d) => (d.isAdmin = true)),
  'valid',
);
add(
  'unknown data field (binary), ignored',
  'signup',
  withData('signup', (d) => (d.isAdmin = true), 'binary'),
  'valid',
);
add(
  'unknown customer field (order), ignored',
  'order',
  withData('order', (d) => (d.customer.ssn = '000-00-0000')),
  'valid',
);
add(
  'unknown item field (order), ignored',
  'order',
  withData('order', (d) => (d.items[0].discount = '100')),
  'valid',
);
add(
  'unknown data field beside a broken one (order): the broken one counts',
  'order',
  withData('order', (d) => {
    d.customer.address.geo = { lat: 1 };
    d.total = 'lots';
  }),
  'INVALID',
);
add(
  'unknown data field (campaign)',
  'campaign',
  withData('campaign', (d) => (d.disableTrackingLinkz = true)),
  'UNKNOWN_FIELD',
);
add(
  'unknown recipient field (campaign)',
  'campaign',
  withData('campaign', (d) => (d.recipients.to[0].role = 'admin')),
  'UNKNOWN_FIELD',
);
add(
  'unknown sender field (campaign)',
  'campaign',
  withData('campaign', (d) => (d.sender = { from: { name: 'A', email: 'a@x.io', dkim: 'k' } })),
  'UNKNOWN_FIELD',
);
add(
  'unknown member field (contact list)',
  'contactList',
  withData('contactList', (d) => (d.members[0].password = 'x')),
  'UNKNOWN_FIELD',
);
add(
  'field named like an address',
  'contactList',
  withData('contactList', (d) => (d['ada@example.com'] = 1)),
  'UNKNOWN_FIELD',
);
for (const [where, anchor] of [
  ['top level', '{'],
  ['data', '"data":{'],
] as const) {
  for (const name of ['__proto__', 'constructor', 'prototype']) {
    add(
      `'${name}' at ${where}`,
      'signup',
      editedJson('signup', (t) => t.replace(anchor, `${anchor}"${name}":{"isAdmin":true},`)),
      'UNKNOWN_FIELD',
    );
  }
}
add(
  "'__proto__' inside attributes",
  'campaign',
  editedJson('campaign', (t) =>
    t.replace('"attributes":{', '"attributes":{"__proto__":{"polluted":"yes"},'),
  ),
  'UNKNOWN_FIELD',
);
add(
  "'__proto__' in binary-mode data",
  'order',
  ((r) => ({
    ...r,
    value: Buffer.from(r.value!.toString().replace('{', '{"__proto__":{"x":1},')),
  }))(mutated('order', 'binary')),
  'UNKNOWN_FIELD',
);

// Strings that reach the vendor: no line breaks, controls or invisible characters; bounded.
const BAD_CHARACTERS: Array<[string, string]> = [
  ['CRLF', '\r\n'],
  ['LF', '\n'],
  ['NEL', '\u0085'],
  ['U+2028', '\u2028'],
  ['NUL', '\u0000'],
  ['ESC', '\u001B'],
  ['DEL', '\u007F'],
  ['tab', '\t'],
  ['zero-width space', '\u200B'],
  ['bidi override', '\u202E'],
  ['bidi isolate', '\u2066'],
  ['soft hyphen', '\u00AD'],
  ['word joiner', '\u2060'],
  ['BOM character', '\uFEFF'],
];
/** Where each bad character is tried, round-robin: every field kind meets several of them. */
const TEXT_FIELDS: Array<[string, CorpusTopic, (d: Data, bad: string) => void]> = [
  ['sign-up name', 'signup', (d, bad) => (d.name = `Ada${bad}Lovelace`)],
  ['campaign subject', 'campaign', (d, bad) => (d.subject = `News${bad}Bcc: x@evil.io`)],
  ['contact-list name', 'contactList', (d, bad) => (d.name = `List${bad}1`)],
  ['campaign header value', 'campaign', (d, bad) => (d.headers['X-Campaign'] = `a${bad}b`)],
  [
    'recipient attribute value',
    'campaign',
    (d, bad) => (d.recipients.to[0].attributes.FIRST_NAME = `A${bad}da`),
  ],
  ['order item name', 'order', (d, bad) => (d.items[0].name = `Tea${bad}`)],
];
BAD_CHARACTERS.forEach(([what, bad], i) => {
  for (const [field, topic, set] of [
    TEXT_FIELDS[i % TEXT_FIELDS.length],
    TEXT_FIELDS[(i + 3) % TEXT_FIELDS.length],
  ]) {
    add(
      `${what} in ${field}`,
      topic,
      withData(topic, (d) => set(d, bad)),
      'INVALID',
    );
  }
});
add(
  'CRLF in a header name',
  'campaign',
  withData('campaign', (d) => (d.headers = { 'X-A\r\nBcc': 'x' })),
  'INVALID',
);
add(
  'CRLF in an attribute name',
  'campaign',
  withData('campaign', (d) => (d.recipients.to[0].attributes = { 'K\r\n': 'v' })),
  'INVALID',
);
add(
  'number as an attribute value',
  'campaign',
  withData('campaign', (d) => (d.recipients.to[0].attributes = { K: 1 })),
  'INVALID',
);
add(
  'LF in a member tag',
  'contactList',
  withData('contactList', (d) => (d.members[0].tags = ['a\nb'])),
  'INVALID',
);
add(
  'CRLF in a sender name',
  'campaign',
  withData('campaign', (d) => (d.sender = { from: { name: 'A\r\nBcc: x', email: 'a@x.io' } })),
  'INVALID',
);
add(
  'NUL in the body',
  'campaign',
  withData('campaign', (d) => (d.body = '<p>a\u0000b</p>')),
  'INVALID',
);
add(
  'C1 control in the body',
  'campaign',
  withData('campaign', (d) => (d.body = '<p>a\u009Bb</p>')),
  'INVALID',
);
add(
  'U+2028 in the body',
  'campaign',
  withData('campaign', (d) => (d.body = '<p>a\u2028b</p>')),
  'INVALID',
);

const BAD_EMAILS: Array<[string, string]> = [
  ['a zero-width space', 'ada\u200B@example.com'],
  ['a zero-width joiner', 'ada@exa\u200Dmple.com'],
  ['a BOM character', '\uFEFFada@example.com'],
  ['a space inside', 'ada lovelace@example.com'],
  ['a leading space', ' ada@example.com'],
  ['a trailing space', 'ada@example.com '],
  ['a no-break space', 'ada@example.com\u00A0'],
  ['CRLF', 'ada@example.com\r\nBcc: x@evil.io'],
  ['no @', 'ada.example.com'],
  ['two @', 'ada@@example.com'],
  [
    '321 characters',
    `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.${'e'.repeat(63)}.io`,
  ],
];
const EMAIL_FIELDS: Array<[string, CorpusTopic, (d: Data, email: string) => void]> = [
  ['sign-up', 'signup', (d, email) => (d.email = email)],
  ['recipient', 'campaign', (d, email) => (d.recipients.to[0].email = email)],
  ['member', 'contactList', (d, email) => (d.members[0].email = email)],
  ['customer', 'order', (d, email) => (d.customer.email = email)],
];
BAD_EMAILS.forEach(([what, email], i) => {
  const [field, topic, set] = EMAIL_FIELDS[i % EMAIL_FIELDS.length];
  add(
    `${field} address with ${what}`,
    topic,
    withData(topic, (d) => set(d, email)),
    'INVALID',
  );
});
add(
  'duplicate recipients differing in case',
  'campaign',
  withData('campaign', (d) => (d.recipients.to[1].email = d.recipients.to[0].email.toUpperCase())),
  'INVALID',
);
add(
  'duplicate recipients, identical',
  'campaign',
  withData('campaign', (d) => (d.recipients.to[1].email = d.recipients.to[0].email)),
  'INVALID',
);
add(
  'duplicate members differing in case',
  'contactList',
  withData(
    'contactList',
    (d) => (d.members[1].email = d.members[0].email.replace('example.com', 'EXAMPLE.com')),
  ),
  'INVALID',
);

const OVERLONG: Array<[string, CorpusTopic, (d: Data) => void]> = [
  ['sign-up name (201)', 'signup', (d) => (d.name = 'n'.repeat(201))],
  ['userId (201)', 'signup', (d) => (d.userId = 'u'.repeat(201))],
  ['subject (999)', 'campaign', (d) => (d.subject = 's'.repeat(999))],
  ['preview (501)', 'campaign', (d) => (d.preview = 'p'.repeat(501))],
  ['campaignId (201)', 'campaign', (d) => (d.campaignId = 'c'.repeat(201))],
  ['body (200,001)', 'campaign', (d) => (d.body = 'b'.repeat(200_001))],
  ['header value (999)', 'campaign', (d) => (d.headers['X-Campaign'] = 'h'.repeat(999))],
  [
    'attribute value (1,001)',
    'campaign',
    (d) => (d.recipients.to[0].attributes.FIRST_NAME = 'a'.repeat(1001)),
  ],
  ['contact-list name (201)', 'contactList', (d) => (d.name = 'l'.repeat(201))],
  ['member first name (101)', 'contactList', (d) => (d.members[0].firstName = 'f'.repeat(101))],
  ['member tag (101)', 'contactList', (d) => (d.members[0].tags = ['t'.repeat(101)])],
  ['orderId (101)', 'order', (d) => (d.orderId = 'o'.repeat(101))],
  ['item sku (101)', 'order', (d) => (d.items[0].sku = 's'.repeat(101))],
  ['placedAt (41)', 'order', (d) => (d.placedAt = `2026-11-21T10:00:00.${'0'.repeat(20)}Z`)],
];
for (const [what, topic, set] of OVERLONG)
  add(`overlong ${what}`, topic, withData(topic, set), 'INVALID');

// Numbers and money.
for (const [what, quantity] of [
  ['negative', -1],
  ['zero', 0],
  ['fractional', 1.5],
  ['huge', 1e21],
  ['beyond a safe integer', 2 ** 60],
  ['a string', '2'],
] as const) {
  add(
    `${what} quantity`,
    'order',
    withData('order', (d) => (d.items[0].quantity = quantity)),
    'INVALID',
  );
}
for (const currency of ['EURO', 'XXY', 'EU'])
  add(
    `currency '${currency}'`,
    'order',
    withData('order', (d) => (d.currency = currency)),
    'INVALID',
  );
add(
  'currency as a number',
  'order',
  withData('order', (d) => (d.currency = 978)),
  'INVALID',
);
for (const total of ['-1.00', '1e3', '35,00', '1.23456', '9999999999999', ' 35.00', '']) {
  add(
    `total '${total}'`,
    'order',
    withData('order', (d) => (d.total = total)),
    'INVALID',
  );
}
add(
  'total as a number',
  'order',
  withData('order', (d) => (d.total = 35)),
  'INVALID',
);
add(
  'unit price as a float',
  'order',
  withData('order', (d) => (d.items[0].unitPrice = 17.5)),
  'INVALID',
);
add(
  'plan outside the list',
  'signup',
  withData('signup', (d) => (d.plan = 'admin')),
  'INVALID',
);
add(
  'disableTrackingLinks as a string',
  'campaign',
  withData('campaign', (d) => (d.disableTrackingLinks = 'true')),
  'INVALID',
);

/** Every case, each with a unique `kind`. */
export const HOSTILE_CORPUS: readonly HostileCase[] = cases;
