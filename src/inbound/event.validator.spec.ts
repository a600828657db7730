import { HOSTILE_CORPUS } from '../../test/hostile/corpus';
import { CORPUS_PARSE_OPTIONS, corpusRecord } from '../../test/hostile/corpus-parsing';
import { FULL_EVENTS } from '../../test/hostile/full-events';
import { TOPICS, interleavedValidEvents } from '../../test/hostile/valid-events';
import { classValidatorEvent } from '../../test/support/class-validator-reference';
import { INBOUND_SCHEMAS, lenientPaths, type JsonSchema } from '../contracts/json-schema';
import { readEvent } from './event.parser';
import { validateEvent } from './event.validator';
import { InvalidEventError } from './invalid-event.error';

/*
 * The compiled validators against class-validator, the reference they replaced: on every record
 * of the hostile corpus that reaches validation, and on every field of a full event of each type
 * set to values chosen to break each kind of rule. A rule added to a contract class but lost on
 * the way to the schema makes them disagree here.
 */

type Verdict = 'valid' | 'UNKNOWN_FIELD' | 'INVALID' | 'other';
type Path = ReadonlyArray<string | number>;

function verdictOf(error: unknown): Verdict {
  if (!(error instanceof InvalidEventError)) return 'other';
  return error.code === 'UNKNOWN_FIELD' || error.code === 'INVALID' ? error.code : 'other';
}

function compiled(type: string, plain: Record<string, unknown>): Verdict {
  return compiledWithMessage(type, plain).verdict;
}

function compiledWithMessage(type: string, plain: Record<string, unknown>) {
  try {
    validateEvent(type, plain);
    return { verdict: 'valid' as Verdict, message: '' };
  } catch (error) {
    return { verdict: verdictOf(error), message: (error as Error).message };
  }
}

async function reference(type: string, plain: Record<string, unknown>): Promise<Verdict> {
  return classValidatorEvent(type, plain).then(() => 'valid' as const, verdictOf);
}

/** The corpus records that pass every check before the contract, as (kind, type, event). */
function reachingValidation(): Array<[string, string, Record<string, unknown>]> {
  const reached: Array<[string, string, Record<string, unknown>]> = [];
  for (const c of HOSTILE_CORPUS) {
    try {
      const { type, plain } = readEvent(corpusRecord(c), CORPUS_PARSE_OPTIONS);
      reached.push([c.kind, type, plain]);
    } catch {
      // Refused before validation (UNPARSEABLE, TOO_COMPLEX, …): hostile-corpus.spec.ts covers it.
    }
  }
  return reached;
}

const DELETE = Symbol('delete');
/** Every `@MaxLength` of the contracts and one more. */
const LENGTHS = [1, 10, 11, 20, 21, 30, 31, 35, 36, 40, 41, 50, 51, 100, 101, 200, 201, 320, 321];
const LONG = [500, 501, 998, 999, 1000, 1001, 2000, 2001, 200_000, 200_001];
const STRINGS = [
  ...['', ' ', 'a b', 'a\nb', 'a\r\nb', 'a\tb', 'a\u0000b', 'a\u0085b', 'a\u2028b', 'a\u200Bb'],
  ...['a\u200Cb', 'a\u00ADb', 'a\uFEFFb', 'a\u202Eb', '\u{1F600}', 'Zoë', '1.0', 'true'],
  ...['ada@example.com', 'ADA@Example.COM', 'ada@@example.com', 'ada@example', ' a@example.com'],
  ...['"a b"@example.com', 'ada\u200C@example.com', 'ada\u2003x@example.com', 'ada\u3000@x.io'],
  ...['ada\u00A0@example.com', 'EUR', 'eur', 'Eur', 'XXX', 'EURO', 'free', 'FREE', 'pro'],
  ...['35.00', '35', '1e3', '-1.00', '35.12345', '2026-11-21T10:00:00Z', '2026-11-21t10:00:00z'],
  ...['2026-11-21T10:00:00.123+02:00', '2026-11-21', '2026-W47-6', '2026-02-30T10:00:00Z'],
  ...['2026-11-21T10:00:60Z', '2026-11-21T10:00:00', '2026-11-21T25:00:00Z'],
];
const entries = (n: number) =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`K${i}`, 'v']));
const OTHERS = [
  ...[null, true, false, 0, 1, 2, -1, 1.5, 1_000_000, 1_000_001, 2 ** 60, 1e21],
  ...[[], ['a'], [1], [{}], {}, { a: 'b' }, { a: 1 }, { '': 'x' }, { 'a\r\n': 'v' }],
  ...[{ 'a b': 'v' }, entries(20), entries(21), entries(100), entries(101)],
  ...[{ k: 'v'.repeat(998) }, { k: 'v'.repeat(999) }, { k: 'v'.repeat(1001) }],
  ...[{ ['k'.repeat(100)]: 'v' }, { ['k'.repeat(101)]: 'v' }],
];
const COUNTS = [0, 1, 100, 101, 500, 501];

/** Values to try in place of `original`; arrays also get copies of their first item. */
function variants(original: unknown): unknown[] {
  const values: unknown[] = [DELETE, ...OTHERS, '', 'a'];
  if (typeof original === 'string') {
    values.push(...STRINGS, ...[...LENGTHS, ...LONG].map((n) => 'a'.repeat(n)));
  }
  if (Array.isArray(original)) {
    values.push([original[0], original[0]], ...COUNTS.map((n) => copies(original[0], n)));
  }
  return values;
}

/** `n` copies of an item, each with its own address if it has one. */
function copies(item: unknown, n: number): unknown[] {
  return Array.from({ length: n }, (_, i) =>
    typeof item === 'object' && item !== null && 'email' in item
      ? { ...item, email: `r${i}@example.com` }
      : item,
  );
}

/**
 * A list where an object is declared, or an object where a list is: refused as INVALID without
 * a look inside, where class-validator looked inside and could find an unknown field first.
 */
function isShapeDifference(original: unknown, value: unknown, verdict: Verdict): boolean {
  const isObject = (v: unknown) => typeof v === 'object' && v !== null;
  return (
    verdict === 'INVALID' &&
    isObject(original) &&
    isObject(value) &&
    Array.isArray(original) !== Array.isArray(value)
  );
}

/** Every field of `value`, at any depth (the first item of each array standing for all). */
function* fieldPaths(value: unknown, path: Path = []): Generator<Path> {
  if (Array.isArray(value)) {
    if (value.length > 0) yield* fieldPaths(value[0], [...path, 0]);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  if (path.length > 0) yield [...path, 'zz'];
  for (const [key, child] of Object.entries(value)) {
    yield [...path, key];
    yield* fieldPaths(child, [...path, key]);
  }
}

function withValue(event: object, path: Path, value: unknown): Record<string, unknown> {
  const copy = structuredClone(event) as Record<string | number, unknown>;
  let parent = copy;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
  const last = path[path.length - 1];
  if (value === DELETE) delete parent[last];
  else parent[last] = value;
  return copy;
}

function at(value: unknown, path: Path): unknown {
  return path.reduce((v, key) => (v as Record<string | number, unknown>)?.[key], value);
}

function shown(value: unknown): string {
  if (value === DELETE) return '(deleted)';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 40)}… (${text.length} chars)` : text;
}

/** Schema properties that the full event leaves out, so that the sweep would not reach them. */
function missing(schema: JsonSchema, value: unknown, root: JsonSchema, path = ''): string[] {
  const ref = (schema.$ref ?? (schema.anyOf as JsonSchema[] | undefined)?.[0]?.$ref) as string;
  if (ref) return missing(at(root, ref.split('/').slice(1)) as JsonSchema, value, root, path);
  if (schema.items) return missing(schema.items as JsonSchema, (value as unknown[])[0], root, path);
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  return Object.entries(properties).flatMap(([name, child]) => {
    const field = (value as Record<string, unknown>)[name];
    return field === undefined
      ? [`${path}${name}`]
      : missing(child, field, root, `${path}${name}.`);
  });
}

describe(validateEvent.name, () => {
  describe('agrees with class-validator on every hostile record that reaches validation', () => {
    const reached = reachingValidation();

    it('compares most of the corpus', () => {
      expect(reached.length).toBeGreaterThan(HOSTILE_CORPUS.length / 2);
    });

    it.each(reached)('%s', async (_kind, type, plain) => {
      expect(compiled(type, plain)).toBe(await reference(type, plain));
    });

    it('and on interleaved valid events of every type and encoding', async () => {
      for (const r of interleavedValidEvents(3, 'diff')) {
        const { type, plain } = readEvent(corpusRecord(r), CORPUS_PARSE_OPTIONS);
        expect([compiled(type, plain), await reference(type, plain)]).toEqual(['valid', 'valid']);
      }
    });
  });

  describe.each(TOPICS)(
    'agrees with class-validator field by field on a full %s event',
    (topic) => {
      const event = FULL_EVENTS[topic];
      const type = event.type as string;

      it('sets every field of its schema, so that the sweep reaches every rule', () => {
        const schema = INBOUND_SCHEMAS[type];
        expect(missing(schema, event, schema)).toEqual([]);
      });

      it("whatever value one field takes (a lenient field's that breaks a rule is ignored)", async () => {
        expect(await reference(type, event)).toBe('valid');
        const lenient = new Set(lenientPaths(INBOUND_SCHEMAS[type]));
        const disagreements: string[] = [];
        for (const path of fieldPaths(event)) {
          const original = at(event, path);
          for (const value of variants(original)) {
            const changed = withValue(event, path, value);
            // First: the compiled validator removes what it ignores from the event it is given.
            const theirs = await reference(type, changed);
            const ours = compiledWithMessage(type, changed);
            const expected = lenient.has(path.join('.')) && theirs === 'INVALID' ? 'valid' : theirs;
            const agree =
              ours.verdict === expected || isShapeDifference(original, value, ours.verdict);
            if (
              !agree ||
              (typeof value === 'string' && value.length > 3 && ours.message.includes(value))
            ) {
              disagreements.push(
                `${path.join('.')} = ${shown(value)}: ${ours.verdict}, not ${theirs}`,
              );
            }
          }
        }
        expect(disagreements).toEqual([]);
      });
    },
  );

  describe('differs from class-validator, knowingly', () => {
    const signup = FULL_EVENTS.signup;
    const order = FULL_EVENTS.order;

    it('in the code for a list where an object is declared: INVALID, as the list is never read', async () => {
      const from = { name: 'Shop', email: 'shop@example.com', x: 1 };
      const changed = withValue(FULL_EVENTS.campaign, ['data', 'sender'], [{ from }]);
      expect([
        compiled('email.campaign.requested.v1', changed),
        await reference('email.campaign.requested.v1', changed),
      ]).toEqual(['INVALID', 'UNKNOWN_FIELD']);
    });

    it('in counting a variation selector toward maxLength, as JSON Schema counts code points', async () => {
      // 199 letters, a heart and VS16: 201 code points; validator.js does not count the VS16.
      const name = `${'a'.repeat(199)}\u2764\uFE0F`;
      const changed = withValue(signup, ['data', 'name'], name);
      expect([
        compiled('user.signed_up.v1', changed),
        await reference('user.signed_up.v1', changed),
      ]).toEqual(['INVALID', 'valid']);
    });

    it('in refusing a currency code whose letters only toUpperCase() turns into ASCII', async () => {
      // validator.js upper-cases before it looks the code up: 'ı' (dotless i) becomes 'I'.
      const changed = withValue(order, ['data', 'currency'], '\u0131NR');
      expect([
        compiled('order.placed.v1', changed),
        await reference('order.placed.v1', changed),
      ]).toEqual(['INVALID', 'valid']);
    });
  });
});

describe('validateEvent reads domain events tolerantly and commands strictly', () => {
  /** The event `validateEvent` returned (or the code it threw) and what it told the listener. */
  function read(type: string, event: Record<string, unknown>) {
    const told: Array<[string, readonly string[]]> = [];
    try {
      const accepted = validateEvent(type, event, (t, paths) => told.push([t, paths]));
      return { accepted: accepted as unknown, told };
    } catch (error) {
      return { code: (error as InvalidEventError).code, message: (error as Error).message, told };
    }
  }

  it('removes an unknown sign-up data field, and says so', () => {
    const event = withValue(FULL_EVENTS.signup, ['data', 'referralCode'], 'r-1');
    const { accepted, told } = read('user.signed_up.v1', event);
    expect(accepted).toEqual(FULL_EVENTS.signup);
    expect(told).toEqual([['user.signed_up.v1', ['data.referralCode']]]);
  });

  it('removes unknown order fields at any depth, naming each path once', () => {
    let event = withValue(FULL_EVENTS.order, ['data', 'loyalty'], { tier: 'gold', points: 3 });
    event = withValue(event, ['data', 'customer', 'address', 'geo'], { lat: 1, lng: 2 });
    const items = at(event, ['data', 'items']) as unknown[];
    event = withValue(event, ['data', 'items'], [items[0], structuredClone(items[0])]);
    event = withValue(event, ['data', 'items', 0, 'discount'], '1.00');
    event = withValue(event, ['data', 'items', 1, 'discount'], '2.00');
    event = withValue(event, ['data', 'customer', 'tags\n'], ['vip']);
    const { accepted, told } = read('order.placed.v1', event);

    const expected = withValue(FULL_EVENTS.order, ['data', 'items'], [items[0], items[0]]);
    expect(accepted).toEqual(expected);
    expect(told).toHaveLength(1);
    expect([...told[0][1]].sort()).toEqual([
      'data.customer.(unnamed)',
      'data.customer.address.geo',
      'data.items[].discount',
      'data.loyalty',
    ]);
  });

  it('says nothing of an event without unknown fields, and returns it as it came', () => {
    const event = structuredClone(FULL_EVENTS.order);
    const { accepted, told } = read('order.placed.v1', event);
    expect(accepted).toBe(event);
    expect(told).toEqual([]);
  });

  it('still refuses a broken field beside an unknown one (INVALID, naming the broken one only)', () => {
    let event = withValue(FULL_EVENTS.signup, ['data', 'referralCode'], 'r-1');
    event = withValue(event, ['data', 'email'], 'not an address');
    const { code, message, told } = read('user.signed_up.v1', event);
    expect(code).toBe('INVALID');
    expect(message).toContain('data.email fails isEmail');
    expect(message).not.toContain('referralCode');
    expect(told).toEqual([]);
  });

  it('refuses an unknown envelope field of a domain event (UNKNOWN_FIELD), data aside', () => {
    let event = withValue(FULL_EVENTS.signup, ['referralCode'], 'r-1');
    event = withValue(event, ['data', 'nickname'], 'Ada');
    const { code, message, told } = read('user.signed_up.v1', event);
    expect([code, message]).toEqual([
      'UNKNOWN_FIELD',
      'user.signed_up.v1 has unknown fields: referralCode',
    ]);
    expect(told).toEqual([]);
  });

  it.each([
    ['email.campaign.requested.v1', ['data', 'disableTrackingLinkz'], 'campaign'],
    ['email.campaign.requested.v1', ['data', 'sender', 'from', 'dkim'], 'campaign'],
    ['email.contact_list.requested.v1', ['data', 'members', 0, 'role'], 'contactList'],
  ] as const)('refuses an unknown field of the command %s at %j', (type, path, topic) => {
    const { code, told } = read(type, withValue(FULL_EVENTS[topic], path, true));
    expect(code).toBe('UNKNOWN_FIELD');
    expect(told).toEqual([]);
  });
});

describe("validateEvent ignores a lenient field's value that does not fit", () => {
  function read(type: string, event: Record<string, unknown>) {
    const told: Array<[string, readonly string[], readonly string[]]> = [];
    try {
      const accepted = validateEvent(type, event, (t, unknown, unfit) =>
        told.push([t, unknown, unfit]),
      );
      return { accepted: accepted as unknown, told };
    } catch (error) {
      return { code: (error as InvalidEventError).code, message: (error as Error).message, told };
    }
  }

  const withoutLocale = withValue(FULL_EVENTS.signup, ['data', 'locale'], DELETE);
  const withoutZone = withValue(FULL_EVENTS.order, ['data', 'customer', 'timeZone'], DELETE);

  it('keeps a value that fits, and says nothing', () => {
    const event = structuredClone(FULL_EVENTS.signup);
    const { accepted, told } = read('user.signed_up.v1', event);
    expect(accepted).toBe(event);
    expect((accepted as typeof event).data).toMatchObject({
      locale: 'en-GB',
      timeZone: 'Europe/London',
    });
    expect(told).toEqual([]);
  });

  it.each<[string, unknown]>([
    ['a number', 42],
    ['too long', 'x'.repeat(100)],
    ['an object', {}],
    ['a list', ['en-GB']],
    ['a control character', 'en\u0000GB'],
    ['a line break', 'en-GB\n'],
    ['a bidi override', '\u202Een-GB'],
  ])('removes a sign-up locale that is %s, counts it and accepts the event', (_what, value) => {
    const event = withValue(FULL_EVENTS.signup, ['data', 'locale'], value);
    const { accepted, told } = read('user.signed_up.v1', event);
    expect(accepted).toEqual(withoutLocale);
    expect(told).toEqual([['user.signed_up.v1', [], ['data.locale']]]);
  });

  it.each<[string, unknown]>([
    ['a number', 42],
    ['an object', {}],
    ['too long', 'Europe/'.repeat(10)],
    ['a boolean', true],
  ])('removes an order customer timeZone that is %s', (_what, value) => {
    const event = withValue(FULL_EVENTS.order, ['data', 'customer', 'timeZone'], value);
    const { accepted, told } = read('order.placed.v1', event);
    expect(accepted).toEqual(withoutZone);
    expect(told).toEqual([['order.placed.v1', [], ['data.customer.timeZone']]]);
  });

  it('keeps a well-formed zone or tag nobody knows: the templates fall back, not validation', () => {
    let event = withValue(FULL_EVENTS.order, ['data', 'customer', 'timeZone'], 'Mars/Olympus');
    event = withValue(event, ['data', 'customer', 'locale'], 'xx-nope');
    const { accepted, told } = read('order.placed.v1', event);
    expect(accepted).toBe(event);
    expect(told).toEqual([]);
  });

  it('removes lenient values beside unknown fields, and names both kinds', () => {
    let event = withValue(FULL_EVENTS.order, ['data', 'customer', 'timeZone'], 42);
    event = withValue(event, ['data', 'customer', 'locale'], 'x'.repeat(36));
    event = withValue(event, ['data', 'loyalty'], 'gold');
    const { accepted, told } = read('order.placed.v1', event);
    expect(accepted).toEqual(withValue(withoutZone, ['data', 'customer', 'locale'], DELETE));
    expect(told).toEqual([
      ['order.placed.v1', ['data.loyalty'], ['data.customer.locale', 'data.customer.timeZone']],
    ]);
  });

  it('still refuses a strict field that breaks its rule beside one (INVALID, naming the strict one)', () => {
    let event = withValue(FULL_EVENTS.signup, ['data', 'locale'], 42);
    event = withValue(event, ['data', 'signupSource'], 42);
    const { code, message, told } = read('user.signed_up.v1', event);
    expect(code).toBe('INVALID');
    expect(message).toBe('user.signed_up.v1 is invalid: data.signupSource fails isString');
    expect(told).toEqual([]);
  });

  it.each([
    ["the customer's first name", ['data', 'customer', 'firstName'], 42],
    ["the customer's company", ['data', 'customer', 'company'], 'x'.repeat(201)],
    ['the currency', ['data', 'currency'], 'EURO'],
  ] as const)('still dead-letters %s when it breaks its rule (INVALID)', (_what, path, value) => {
    const { code } = read('order.placed.v1', withValue(FULL_EVENTS.order, path, value));
    expect(code).toBe('INVALID');
  });
});
