import type { ConsumedRecord } from '../kafka/consumed-record';
import type { TopicsConfig } from '../config/app-config';
import { parseEvent, type ParseOptions } from './event.parser';
import { InvalidEventError } from './invalid-event.error';
import { typesByTopic } from './topic-types';

const data = { userId: 'u-1', email: 'ada@example.com', name: 'Ada Lovelace', plan: 'pro' };
const envelope = { id: 'evt-1', type: 'user.signed_up.v1', time: '2026-11-21T10:00:00Z', data };

const topics = {
  userSignedUp: 'signups',
  orderPlaced: 'orders',
  campaignRequested: 'commands',
  contactListRequested: 'commands',
} as TopicsConfig;
const options: ParseOptions = { maxBytes: 10_000, typesByTopic: typesByTopic(topics) };

function message(
  value: unknown,
  headers: ConsumedRecord['headers'] = {},
  topic = 'signups',
): ConsumedRecord {
  return {
    topic,
    partition: 0,
    offset: '0',
    timestamp: '0',
    key: null,
    value: Buffer.isBuffer(value)
      ? value
      : Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)),
    headers,
  };
}

async function errorOf(promise: Promise<unknown>): Promise<InvalidEventError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InvalidEventError);
  return error as InvalidEventError;
}

describe(parseEvent.name, () => {
  it('accepts a plain JSON envelope', async () => {
    const event = await parseEvent(message(envelope), options);
    expect(event).toMatchObject(envelope);
  });

  it('accepts a CloudEvents structured-mode event', async () => {
    const structured = {
      specversion: '1.0',
      source: '/accounts',
      datacontenttype: 'application/json',
      ...envelope,
    };
    const event = await parseEvent(
      message(structured, { 'content-type': 'application/cloudevents+json' }),
      options,
    );
    expect(event).toMatchObject({ id: 'evt-1', source: '/accounts', specversion: '1.0', data });
  });

  it('accepts a CloudEvents binary-mode record: ce_ headers carry the attributes, the value is data', async () => {
    const headers = {
      ce_specversion: Buffer.from('1.0'),
      ce_id: Buffer.from('evt-2'),
      ce_type: Buffer.from('user.signed_up.v1'),
      ce_source: Buffer.from('/accounts'),
      ce_time: Buffer.from('2026-11-21T10:00:00Z'),
      'content-type': Buffer.from('application/json'),
    };
    const event = await parseEvent(message(data, headers), options);
    expect(event).toMatchObject({
      id: 'evt-2',
      type: 'user.signed_up.v1',
      source: '/accounts',
      data,
    });
  });

  describe('CloudEvents attributes', () => {
    const binaryHeaders = {
      ce_specversion: '1.0',
      ce_id: 'evt-3',
      ce_type: 'user.signed_up.v1',
      ce_source: '/accounts',
      ce_time: '2026-11-21T10:00:00Z',
    };
    const structured = { specversion: '1.0', source: '/accounts', ...envelope };
    const asStructured = { 'content-type': 'application/cloudevents+json; charset=utf-8' };

    it('keeps extension attributes on the event, beside the contract (structured)', async () => {
      const event = await parseEvent(
        message({ ...structured, tenant: 'eu-1', priority: 3, replay: false }, asStructured),
        options,
      );
      expect(event.extensions).toEqual({ tenant: 'eu-1', priority: 3, replay: false });
      expect(event).not.toHaveProperty('tenant');
    });

    it('keeps extension attributes from ce_ headers (binary)', async () => {
      const headers = { ...binaryHeaders, ce_tenant: 'eu-1', ce_partitionkey: 'u-1' };
      const event = await parseEvent(message(data, headers), options);
      expect(event.extensions).toEqual({ tenant: 'eu-1', partitionkey: 'u-1' });
    });

    it('gives a plain envelope and an event without extensions none', async () => {
      expect((await parseEvent(message(envelope), options)).extensions).toBeUndefined();
      const event = await parseEvent(message(structured, asStructured), options);
      expect(event.extensions).toBeUndefined();
    });

    it('refuses a plain envelope that carries an extensions field: it is not part of any contract', async () => {
      const error = await errorOf(parseEvent(message({ ...envelope, extensions: {} }), options));
      expect(error.code).toBe('UNKNOWN_FIELD');
    });

    it('takes datacontenttype from content-type in binary mode', async () => {
      const headers = { ...binaryHeaders, 'content-type': 'application/json; charset=utf-8' };
      const event = await parseEvent(message(data, headers), options);
      expect(event.datacontenttype).toBe('application/json; charset=utf-8');
    });

    it.each([
      ['content-type', { ...binaryHeaders, 'content-type': 'text/plain' }],
      ['ce_datacontenttype', { ...binaryHeaders, ce_datacontenttype: 'application/xml' }],
    ])(
      'refuses binary-mode data that is not JSON (%s) before reading the value',
      async (_, headers) => {
        const error = await errorOf(parseEvent(message('<signup/>', headers), options));
        expect(error.code).toBe('UNSUPPORTED_CONTENT_TYPE');
      },
    );

    it('refuses structured data_base64: every template expects JSON data', async () => {
      const { data: omitted, ...attributes } = structured;
      void omitted;
      const base64 = { ...attributes, data_base64: Buffer.from('{}').toString('base64') };
      const error = await errorOf(parseEvent(message(base64, asStructured), options));
      expect(error.code).toBe('UNSUPPORTED_CONTENT_TYPE');
      expect(error.message).toContain('data_base64');
    });

    it.each([
      ['specversion 9.9', { ...structured, specversion: '9.9' }],
      ['no source', { ...structured, source: undefined }],
    ])('dead-letters %s as INVALID_CLOUDEVENT', async (_, event) => {
      const error = await errorOf(parseEvent(message(event, asStructured), options));
      expect(error.code).toBe('INVALID_CLOUDEVENT');
    });
  });

  it.each([
    ['UNPARSEABLE', message('{"id":')],
    ['UNPARSEABLE', message('[1,2]')],
    ['UNPARSEABLE', message(Buffer.alloc(0))],
    ['UNKNOWN_TYPE', message({ ...envelope, type: 'user.deleted.v1' })],
    ['UNKNOWN_TYPE', message({ ...envelope, type: undefined })],
    ['INVALID', message({ ...envelope, time: 'yesterday' })],
    ['INVALID', message({ ...envelope, data: { ...data, email: 'nope' } })],
    ['OVERSIZED', message({ ...envelope, padding: 'x'.repeat(20_000) })],
  ])('rejects bad input as %s', async (code, bad) => {
    expect((await errorOf(parseEvent(bad, options))).code).toBe(code);
  });

  it('names the fields that broke a rule, never the values in them', async () => {
    const error = await errorOf(
      parseEvent(message({ ...envelope, data: { ...data, email: 'secret@@x' } }), options),
    );
    expect(error.message).toContain('data.email fails isEmail');
    expect(error.message).not.toContain('secret@@x');
  });

  it('validates order.placed.v1 down to its items', async () => {
    const order = {
      id: 'evt-o',
      type: 'order.placed.v1',
      time: '2026-11-21T10:00:00Z',
      data: {
        orderId: 'Order#1',
        customer: { email: 'a@example.com', firstName: 'A' },
        total: '10.00',
        currency: 'EUR',
        placedAt: '2026-11-21T10:00:00Z',
        items: [{ sku: 'S', name: 'N', quantity: 0, unitPrice: '10.00' }],
      },
    };
    const error = await errorOf(parseEvent(message(order, {}, 'orders'), options));
    expect(error.message).toContain('data.items.0.quantity fails min');
  });

  it('accepts two types configured onto one topic, and neither elsewhere', () => {
    const map = typesByTopic(topics);
    expect([...map.get('commands')!]).toEqual([
      'email.campaign.requested.v1',
      'email.contact_list.requested.v1',
    ]);
    expect(map.get('signups')).toEqual(new Set(['user.signed_up.v1']));
  });

  it('refuses an event on a topic that is not configured at all', async () => {
    const error = await errorOf(parseEvent(message(envelope, {}, 'elsewhere'), options));
    expect(error.code).toBe('WRONG_TOPIC');
  });

  it('refuses a CloudEvents attribute sent twice as a header', async () => {
    const headers = {
      ce_specversion: '1.0',
      ce_id: [Buffer.from('evt-1'), Buffer.from('evt-2')],
      ce_type: 'user.signed_up.v1',
      ce_source: '/accounts',
      ce_time: '2026-11-21T10:00:00Z',
    };
    const error = await errorOf(parseEvent(message(data, headers), options));
    expect(error.code).toBe('INVALID_CLOUDEVENT');
  });

  it('compares ids as received: no replacement character merges two ids', async () => {
    const a = Buffer.concat([Buffer.from('{"id":"evt-'), Buffer.from([0xff]), Buffer.from('"}')]);
    expect((await errorOf(parseEvent(message(a), options))).code).toBe('INVALID_ENCODING');
  });
});
