import { CloudEvent, Kafka, type CloudEventV1 } from 'cloudevents';
import {
  EMAIL_CAMPAIGN_SENT_V1,
  EMAIL_CONTACT_LIST_CREATED_V1,
  EMAIL_DISPATCH_FAILED_V1,
  EMAIL_UNSUBSCRIBED_V1,
  ResultDecodeError,
  SchemaValidationError,
  SchemaValidator,
  decodeResult,
  encodeEvent,
  type ContentMode,
  type EncodedRecord,
  type KafkaRecord,
  type PublishableEvent,
} from '@mailbridge/contracts';

const signUp: PublishableEvent = {
  id: 'evt-1',
  type: 'user.signed_up.v1',
  time: '2026-11-21T10:00:00Z',
  source: '/accounts',
  data: { userId: 'u-1', email: 'ada@example.com', name: 'Ada Lovelace', plan: 'trial' },
};

/** What the SDK's own decoder reads from a record, as a consumer would receive it. */
function sdkDecode(record: EncodedRecord): CloudEventV1<unknown> {
  const decoded = Kafka.toEvent({ ...record, body: record.value });
  if (Array.isArray(decoded)) throw new Error('a batch');
  return decoded;
}

/** A kafkajs-consumed record: every header a Buffer. */
function consumed(record: { key: string; value: string; headers: Record<string, string> }) {
  return {
    key: Buffer.from(record.key),
    value: Buffer.from(record.value),
    headers: Object.fromEntries(
      Object.entries(record.headers).map(([name, value]) => [name, Buffer.from(value)]),
    ),
  } satisfies KafkaRecord;
}

describe('encodeEvent', () => {
  it('writes binary mode by default: ce_ headers, content-type, the value is data', () => {
    const record = encodeEvent(signUp);
    expect(record.key).toBe('evt-1');
    expect(record.headers).toEqual({
      ce_specversion: '1.0',
      ce_id: 'evt-1',
      ce_source: '/accounts',
      ce_type: 'user.signed_up.v1',
      ce_time: '2026-11-21T10:00:00Z',
      'content-type': 'application/json',
    });
    expect(JSON.parse(record.value)).toEqual(signUp.data);
  });

  it('writes structured mode: the whole event as JSON, content-type application/cloudevents+json', () => {
    const record = encodeEvent(signUp, { mode: 'structured', key: 'u-1' });
    expect(record.key).toBe('u-1');
    expect(record.headers).toEqual({
      'content-type': 'application/cloudevents+json; charset=utf-8',
    });
    expect(JSON.parse(record.value)).toEqual({
      specversion: '1.0',
      id: 'evt-1',
      source: '/accounts',
      type: 'user.signed_up.v1',
      time: '2026-11-21T10:00:00.000Z',
      datacontenttype: 'application/json',
      data: signUp.data,
    });
  });

  it.each<ContentMode>(['binary', 'structured'])(
    'round-trips through the cloudevents SDK decoder in %s mode',
    (mode) => {
      const event = sdkDecode(encodeEvent({ ...signUp, subject: 'u-1' }, { mode }));
      expect(event).toMatchObject({
        specversion: '1.0',
        id: 'evt-1',
        source: '/accounts',
        type: 'user.signed_up.v1',
        subject: 'u-1',
        datacontenttype: 'application/json',
        data: signUp.data,
      });
      expect(new Date(event.time!).toISOString()).toBe('2026-11-21T10:00:00.000Z');
    },
  );

  it.each<ContentMode>(['binary', 'structured'])(
    'writes extension attributes in %s mode, outside the schema check',
    (mode) => {
      const extensions = { tenant: 'acme', priority: 2, replay: false };
      const record = encodeEvent({ ...signUp, extensions }, { mode, validate: true });
      // A header carries text: in binary mode every extension value reads back as a string.
      const priority = mode === 'binary' ? '2' : 2;
      expect(sdkDecode(record)).toMatchObject({ id: 'evt-1', tenant: 'acme', priority });
      const written =
        mode === 'binary'
          ? record.headers.ce_tenant
          : (JSON.parse(record.value) as Record<string, unknown>).tenant;
      expect(written).toBe('acme');
      expect(() => encodeEvent({ ...signUp, extensions: { id: 'other' } })).toThrow(/id/);
      expect(() => encodeEvent({ ...signUp, extensions: { Tenant: 'acme' } })).toThrow(/Tenant/);
    },
  );

  it('adds the headers it is given (trace context travels on to the results)', () => {
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    expect(encodeEvent(signUp, { headers: { traceparent } }).headers.traceparent).toBe(traceparent);
    expect(encodeEvent(signUp, { mode: 'structured', headers: { traceparent } }).headers).toEqual({
      traceparent,
      'content-type': 'application/cloudevents+json; charset=utf-8',
    });
  });

  it('refuses an event CloudEvents refuses (no source) through the SDK', () => {
    const noSource: Partial<PublishableEvent> = { ...signUp };
    delete noSource.source;
    expect(() => encodeEvent(noSource as PublishableEvent)).toThrow(/source/);
  });

  it('validates against the JSON Schema when asked, naming the field', () => {
    const bad = { ...signUp, data: { ...signUp.data, email: 'not an address' } };
    expect(() => encodeEvent(bad)).not.toThrow();
    expect(() => encodeEvent(bad, { validate: true })).toThrow(SchemaValidationError);
    expect(() => encodeEvent(bad, { validate: true })).toThrow(/data\.email/);
    expect(() => encodeEvent(signUp, { validate: true })).not.toThrow();
  });

  it('lets a domain event carry a field mailbridge does not know, and refuses one in a command', () => {
    // Domain events are read tolerantly (their schema is open); commands strictly.
    const added = { ...signUp, data: { ...signUp.data, referral: { code: 'r-1' } } };
    expect(() => encodeEvent(added, { validate: true })).not.toThrow();
    const command = {
      id: 'cmd-1',
      type: 'email.campaign.requested.v1',
      time: '2026-11-21T10:00:00Z',
      source: '/marketing',
      data: {
        subject: 'Hello',
        body: '<p>Hi</p>',
        recipients: { to: [{ email: 'ada@example.com' }] },
        disableTrackingLinkz: true,
      },
    } as unknown as PublishableEvent;
    expect(() => encodeEvent(command, { validate: true })).toThrow(/additional properties/);
    delete (command.data as unknown as Record<string, unknown>).disableTrackingLinkz;
    expect(() => encodeEvent(command, { validate: true })).not.toThrow();
  });

  describe('refuses, in either mode, what the schemas can only describe and mailbridge refuses', () => {
    const envelope = { time: '2026-11-21T10:00:00Z', source: '/shop' };
    const order = (placedAt: string) =>
      ({
        ...envelope,
        id: 'ord-1',
        type: 'order.placed.v1',
        data: {
          orderId: 'o-1',
          customer: { email: 'ada@example.com', firstName: 'Ada' },
          total: '17.50',
          currency: 'EUR',
          items: [{ sku: 'TEA-1', name: 'Green tea', quantity: 1, unitPrice: '17.50' }],
          placedAt,
        },
      }) satisfies PublishableEvent;
    const campaign = (...emails: string[]) =>
      ({
        ...envelope,
        id: 'cmd-1',
        type: 'email.campaign.requested.v1',
        data: {
          subject: 'Hello',
          body: '<p>Hi</p>',
          recipients: { to: emails.map((email) => ({ email })) },
        },
      }) satisfies PublishableEvent;
    const contactList = (...emails: string[]) =>
      ({
        ...envelope,
        id: 'cmd-2',
        type: 'email.contact_list.requested.v1',
        data: { name: 'Autumn', members: emails.map((email) => ({ email })) },
      }) satisfies PublishableEvent;

    it.each<ContentMode>(['binary', 'structured'])(
      'a placedAt that matches the ISO 8601 pattern but is no date (%s)',
      (mode) => {
        for (const placedAt of ['2026-02-30', '2026-366', '2026-04-31T10:00:00Z']) {
          expect(() => encodeEvent(order(placedAt), { mode, validate: true })).toThrow(
            new SchemaValidationError('order.placed.v1', [
              'data.placedAt must be an ISO 8601 date that exists',
            ]),
          );
        }
        for (const placedAt of ['2024-02-29', '2024-366', '2026-11-21T10:00:00Z']) {
          expect(() => encodeEvent(order(placedAt), { mode, validate: true })).not.toThrow();
        }
      },
    );

    it.each<ContentMode>(['binary', 'structured'])(
      'one address twice in different case in recipients.to or members (%s)',
      (mode) => {
        const twice = ['ada@example.com', 'Ada@Example.COM'];
        expect(() => encodeEvent(campaign(...twice), { mode, validate: true })).toThrow(
          new SchemaValidationError('email.campaign.requested.v1', [
            'data.recipients.to must not have two items with the same email, ignoring case',
          ]),
        );
        expect(() => encodeEvent(contactList(...twice), { mode, validate: true })).toThrow(
          /^not a valid email\.contact_list\.requested\.v1: data\.members must not have two items with the same email, ignoring case$/,
        );
        const distinct = ['ada@example.com', 'bob@example.com'];
        expect(() => encodeEvent(campaign(...distinct), { mode, validate: true })).not.toThrow();
        expect(() => encodeEvent(contactList(...distinct), { mode, validate: true })).not.toThrow();
        const noList = { ...contactList(), data: { name: 'Autumn' } };
        expect(() => encodeEvent(noList, { mode, validate: true })).not.toThrow();
        expect(() => encodeEvent(campaign(...twice))).not.toThrow();
      },
    );

    it('checks them once the schema passes: a schema error comes alone', () => {
      const bad = campaign('ada@example.com', 'ADA@example.com');
      const result = new SchemaValidator().validate(bad.type, {
        ...bad,
        data: { ...bad.data, subject: '' },
      });
      expect(result).toEqual({
        valid: false,
        errors: ['data.subject must NOT have fewer than 1 characters'],
      });
    });
  });
});

const sent = {
  sourceEventId: 'evt-1',
  sourceEventType: 'user.signed_up.v1',
  template: 'welcome',
  requestId: 'req-1',
  requestIds: ['req-1'],
  message: 'queued',
  campaignId: 'welcome-v1',
  recipientCount: 1,
  batchRecipientCount: 3,
};

/** A result as the shared format has mailbridge publish it, written by hand (no SDK). */
function resultRecord(
  mode: ContentMode,
  type: string = EMAIL_CAMPAIGN_SENT_V1,
  data: object = sent,
) {
  const attributes = {
    specversion: '1.0',
    id: 'res-1',
    source: 'mailbridge',
    type,
    time: '2026-11-21T10:00:01.250Z',
    sourceeventid: 'evt-1',
  };
  const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
  if (mode === 'structured') {
    return consumed({
      key: 'u-1',
      value: JSON.stringify({ ...attributes, datacontenttype: 'application/json', data }),
      headers: { 'content-type': 'application/cloudevents+json; charset=utf-8', traceparent },
    });
  }
  const ce = Object.entries(attributes).map(([name, value]): [string, string] => [
    `ce_${name}`,
    value,
  ]);
  return consumed({
    key: 'u-1',
    value: JSON.stringify(data),
    headers: { ...Object.fromEntries(ce), 'content-type': 'application/json', traceparent },
  });
}

describe('decodeResult', () => {
  it.each<ContentMode>(['binary', 'structured'])(
    'reads a result in %s mode, detected from content-type',
    (mode) => {
      const result = decodeResult(resultRecord(mode));
      expect(result).toEqual({
        specversion: '1.0',
        id: 'res-1',
        type: EMAIL_CAMPAIGN_SENT_V1,
        source: 'mailbridge',
        time: '2026-11-21T10:00:01.250Z',
        sourceeventid: 'evt-1',
        datacontenttype: 'application/json',
        data: sent,
        record: {
          key: 'u-1',
          mode,
          traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
        },
      });
    },
  );

  it('returns a union narrowed by type', () => {
    const failed = { ...sent, errorCode: 'VENDOR_REJECTED', retriable: false, message: 'no' };
    const results = [
      decodeResult(resultRecord('binary')),
      decodeResult(
        resultRecord('structured', EMAIL_CONTACT_LIST_CREATED_V1, {
          ...sent,
          listId: 'l-1',
          name: 'Autumn',
          memberCount: 2,
        }),
      ),
      decodeResult(resultRecord('binary', EMAIL_DISPATCH_FAILED_V1, failed)),
      decodeResult(
        resultRecord('structured', EMAIL_UNSUBSCRIBED_V1, {
          unsubscribeId: 'evt-1',
          address: 'ada@example.com',
          category: 'marketing',
          scope: 'marketing',
          unsubscribedAt: '2026-11-21T10:00:01.250Z',
        }),
      ),
    ];
    const summary = results.map((result) => {
      switch (result.type) {
        case EMAIL_CAMPAIGN_SENT_V1:
          return result.data.requestId;
        case EMAIL_CONTACT_LIST_CREATED_V1:
          return result.data.listId;
        case EMAIL_DISPATCH_FAILED_V1:
          return result.data.errorCode;
        case EMAIL_UNSUBSCRIBED_V1:
          return result.data.scope;
      }
    });
    expect(summary).toEqual(['req-1', 'l-1', 'VENDOR_REJECTED', 'marketing']);
  });

  it('reads what the cloudevents SDK encodes, in both modes', () => {
    const event = new CloudEvent({
      id: 'res-2',
      source: 'mailbridge',
      type: EMAIL_CAMPAIGN_SENT_V1,
      time: '2026-11-21T10:00:01Z',
      datacontenttype: 'application/json',
      sourceeventid: 'evt-2',
      data: sent,
    });
    const binary = Kafka.binary(event);
    const structured = Kafka.structured(event);
    const records = [
      { value: JSON.stringify(binary.value), headers: binary.headers as Record<string, string> },
      { value: String(structured.value), headers: structured.headers as Record<string, string> },
    ];
    expect(records.map((r) => decodeResult({ key: null, ...r }).sourceeventid)).toEqual([
      'evt-2',
      'evt-2',
    ]);
    expect(records.map((r) => decodeResult({ key: null, ...r }).record.mode)).toEqual([
      'binary',
      'structured',
    ]);
  });

  it('refuses records that are not mailbridge results', () => {
    const plain = consumed({ key: 'k', value: '{"id":"x"}', headers: {} });
    expect(() => decodeResult(plain)).toThrow(ResultDecodeError);
    const otherType = resultRecord('binary', 'user.signed_up.v1');
    expect(() => decodeResult(otherType)).toThrow(/not a mailbridge result type/);
    const notJson = { ...resultRecord('structured'), value: Buffer.from('{') };
    expect(() => decodeResult(notJson)).toThrow(ResultDecodeError);
    const binary = resultRecord('binary');
    const noSource = { ...binary, headers: { ...binary.headers, ce_source: undefined } };
    expect(() => decodeResult(noSource)).toThrow(/not a valid CloudEvent/);
    const noCorrelation = {
      ...binary,
      headers: { ...binary.headers, ce_sourceeventid: undefined },
    };
    expect(() => decodeResult(noCorrelation)).toThrow(/sourceeventid/);
  });

  it("validates data against the result type's schema when asked", () => {
    const validator = new SchemaValidator({
      [EMAIL_CAMPAIGN_SENT_V1]: {
        type: 'object',
        required: ['requestId'],
        properties: { requestId: { type: 'string' } },
      },
    });
    const withoutRequestId: Partial<typeof sent> = { ...sent };
    delete withoutRequestId.requestId;
    const bad = resultRecord('binary', EMAIL_CAMPAIGN_SENT_V1, withoutRequestId);
    expect(() => decodeResult(bad)).not.toThrow();
    expect(() => decodeResult(bad, { validate: validator })).toThrow(/requestId/);
    expect(() => decodeResult(resultRecord('binary'), { validate: validator })).not.toThrow();
  });
});
