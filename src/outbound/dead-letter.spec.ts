import { createHash } from 'node:crypto';
import Ajv from 'ajv';
import { KafkaJSNonRetriableError, KafkaJSProtocolError } from 'kafkajs';
import { contractSchemas, DEAD_LETTER_HEADERS_SCHEMA } from '../contracts/contract-schemas';
import { DLT_HEADERS, readDeadLetterHeaders } from '../contracts/dead-letter-headers';
import { DEAD_LETTER_HEADERS } from '../contracts/kafka-headers';
import type { ConsumedRecord } from '../kafka/consumed-record';
import { InvalidEventError } from '../inbound/invalid-event.error';
import {
  DEAD_LETTER_MARGIN_BYTES,
  KAFKA_DEFAULT_MAX_MESSAGE_BYTES,
  buildDeadLetter,
  estimateRecordBytes,
  formAfterRefusal,
  isMessageTooLarge,
  type DeadLetterReference,
} from './dead-letter';

function inbound(valueBytes: number, headers: ConsumedRecord['headers'] = {}): ConsumedRecord {
  return {
    topic: 'user.signed_up.v1',
    partition: 2,
    offset: '41',
    timestamp: '1790000000000',
    key: Buffer.from('user-7'),
    value: Buffer.alloc(valueBytes, 'x'),
    headers,
  };
}

const GROUP = 'mailbridge-test';
const oversized = new InvalidEventError('OVERSIZED', 'message of many bytes exceeds 262144');

function reference(value: unknown): DeadLetterReference {
  return JSON.parse(String(value)) as DeadLetterReference;
}

/**
 * The exact size of a v2 record batch holding one record with a zero timestamp delta: 61 bytes of
 * batch header, then the record with its varint lengths.
 */
function exactBatchBytes(key: Buffer, value: Buffer, headers: Record<string, string>): number {
  const varint = (n: number) => {
    let z = (n << 1) ^ (n >> 31);
    let bytes = 1;
    while (z >= 0x80) {
      z >>>= 7;
      bytes++;
    }
    return bytes;
  };
  let body = 1 + 1 + 1; // attributes, timestamp delta, offset delta
  body += varint(key.length) + key.length + varint(value.length) + value.length;
  body += varint(Object.keys(headers).length);
  for (const [name, v] of Object.entries(headers)) {
    body += varint(Buffer.byteLength(name)) + Buffer.byteLength(name);
    body += varint(Buffer.byteLength(v)) + Buffer.byteLength(v);
  }
  return 61 + varint(body) + body;
}

describe(buildDeadLetter.name, () => {
  it('keeps the original record, with error headers, when it fits', () => {
    const message = inbound(5000, { 'x-origin': 'test' });
    const letter = buildDeadLetter(message, oversized, {
      consumerGroup: GROUP,
      limitBytes: KAFKA_DEFAULT_MAX_MESSAGE_BYTES,
    });
    expect(letter.form).toBe('original');
    expect(letter.message.value).toBe(message.value);
    expect(letter.message.key).toBe(message.key);
    expect(letter.message.headers).toMatchObject({
      'x-origin': 'test',
      'kafka_dlt-original-topic': 'user.signed_up.v1',
      'mailbridge_dlt-error-code': 'OVERSIZED',
    });
    expect(letter.message.headers[DLT_HEADERS.valueReplaced]).toBeUndefined();
  });

  /** Every header name a dead letter may carry, the service's and those of its older scheme. */
  const deadLetterNames = [
    ...Object.values(DEAD_LETTER_HEADERS).map((header) => header.name),
    ...['original-topic', 'original-partition', 'original-offset', 'original-timestamp'].map(
      (name) => `dlq-${name}`,
    ),
    ...['error-class', 'error-code', 'error-message', 'value-replaced'].map((n) => `dlq-${n}`),
  ];

  it.each(deadLetterNames)('writes its own %s, never one the record arrived with', (name) => {
    const spoofed = inbound(100, { [name]: 'spoofed', 'x-origin': 'test' });
    for (const atLeast of ['original', 'reference', 'minimal'] as const) {
      const letter = buildDeadLetter(spoofed, oversized, {
        consumerGroup: GROUP,
        limitBytes: KAFKA_DEFAULT_MAX_MESSAGE_BYTES,
        atLeast,
      });
      const clean = buildDeadLetter(inbound(100, { 'x-origin': 'test' }), oversized, {
        consumerGroup: GROUP,
        limitBytes: KAFKA_DEFAULT_MAX_MESSAGE_BYTES,
        atLeast,
      });
      expect(letter.message.headers[name]).toEqual(clean.message.headers[name]);
      expect(letter.message.headers).toEqual(clean.message.headers);
    }
  });

  it('writes the headers the AsyncAPI document and schemas/ publish, in their encodings', () => {
    const published = contractSchemas().find((c) => c.name === DEAD_LETTER_HEADERS_SCHEMA)!;
    const validate = new Ajv({ strict: false }).compile(published.schema);
    const width = { 'int32-big-endian': 4, 'int64-big-endian': 8 } as const;
    for (const limitBytes of [KAFKA_DEFAULT_MAX_MESSAGE_BYTES, 2_000]) {
      const { headers } = buildDeadLetter(inbound(5000, { 'x-origin': 'test' }), oversized, {
        consumerGroup: GROUP,
        limitBytes,
      }).message;
      const asText = Object.fromEntries(
        Object.entries(headers).map(([name, value]) => [name, String(value)]),
      );
      expect(validate(asText) ? [] : validate.errors).toEqual([]);
      const written = Object.values(DEAD_LETTER_HEADERS)
        .filter((header) => headers[header.name] !== undefined)
        .map((header) => {
          const value = headers[header.name];
          const form = typeof value === 'string' ? 'utf8' : (value as Buffer).length;
          return [header.name, form];
        });
      const documented = Object.values(DEAD_LETTER_HEADERS)
        .filter((header) => headers[header.name] !== undefined)
        .map((header) => [
          header.name,
          header.encoding === 'utf8' ? 'utf8' : width[header.encoding],
        ]);
      expect(written).toEqual(documented);
    }
  });

  it("writes Spring Kafka's header names in its encoding: big-endian int and longs, UTF-8 text", () => {
    const message = { ...inbound(10), partition: 258, offset: '4294967301' };
    const h = buildDeadLetter(message, oversized, {
      consumerGroup: GROUP,
      limitBytes: KAFKA_DEFAULT_MAX_MESSAGE_BYTES,
    }).message.headers;
    // What Java's ByteBuffer.allocate(4).putInt(258) and allocate(8).putLong(…) produce.
    expect(h['kafka_dlt-original-partition']).toEqual(Buffer.from([0, 0, 1, 2]));
    expect(h['kafka_dlt-original-offset']).toEqual(Buffer.from([0, 0, 0, 1, 0, 0, 0, 5]));
    expect(h['kafka_dlt-original-timestamp']).toEqual(
      Buffer.from('000001a0c4506c00', 'hex'), // 1790000000000
    );
    expect(h['kafka_dlt-original-timestamp-type']).toBe('CreateTime');
    expect(h['kafka_dlt-original-consumer-group']).toBe(GROUP);
    expect(h['kafka_dlt-exception-fqcn']).toBe('mailbridge.InvalidEventError.OVERSIZED');
    expect(h['kafka_dlt-exception-message']).toBe(oversized.message);
    expect(h['mailbridge_dlt-error-code']).toBe('OVERSIZED');
    expect(Object.keys(h).filter((name) => name.startsWith('dlq-'))).toEqual([]);
    expect(readDeadLetterHeaders(h)).toEqual({
      originalTopic: 'user.signed_up.v1',
      originalPartition: 258,
      originalOffset: '4294967301',
      originalTimestamp: '1790000000000',
      originalTimestampType: 'CreateTime',
      originalConsumerGroup: GROUP,
      exceptionFqcn: 'mailbridge.InvalidEventError.OVERSIZED',
      exceptionMessage: oversized.message,
      errorCode: 'OVERSIZED',
      valueReplaced: false,
    });
  });

  it('writes -1, as Kafka does for none, when a record has no numeric timestamp', () => {
    const message = { ...inbound(10), timestamp: 'not a number' };
    const h = buildDeadLetter(message, oversized, {
      consumerGroup: GROUP,
      limitBytes: KAFKA_DEFAULT_MAX_MESSAGE_BYTES,
    }).message.headers;
    expect(h['kafka_dlt-original-timestamp']).toEqual(Buffer.alloc(8, 0xff));
  });

  it('names the timestamp type the broker gave the record', () => {
    const message = { ...inbound(10), timestampType: 'LogAppendTime' as const };
    const h = buildDeadLetter(message, oversized, {
      consumerGroup: GROUP,
      limitBytes: KAFKA_DEFAULT_MAX_MESSAGE_BYTES,
    }).message.headers;
    expect(h['kafka_dlt-original-timestamp-type']).toBe('LogAppendTime');
  });

  it('replaces a value that fits the inbound topic but not the dead-letter topic by a reference', () => {
    // Fits a topic at Kafka's default limit by itself; not with the error headers added.
    const message = inbound(1_048_450, { 'x-origin': 'test' });
    const letter = buildDeadLetter(message, oversized, {
      consumerGroup: GROUP,
      limitBytes: KAFKA_DEFAULT_MAX_MESSAGE_BYTES,
    });
    expect(letter.form).toBe('reference');
    expect(letter.message.key).toBe(message.key);
    expect(letter.message.headers).toMatchObject({
      'x-origin': 'test',
      'mailbridge_dlt-error-code': 'OVERSIZED',
      'mailbridge_dlt-value-replaced': 'reference',
    });
    expect(letter.message.headers['mailbridge_dlt-headers-dropped']).toBeUndefined();
    expect(reference(letter.message.value)).toEqual({
      originalTopic: 'user.signed_up.v1',
      originalPartition: 2,
      originalOffset: '41',
      originalSize: 1_048_450,
      sha256: createHash('sha256').update(message.value!).digest('hex'),
      reason: 'exceeds-topic-limit',
      limitBytes: KAFKA_DEFAULT_MAX_MESSAGE_BYTES,
    });
  });

  it('drops the original headers too when they alone would not fit, and says how many', () => {
    const headers = { 'x-huge': 'h'.repeat(20_000), 'x-small': 'ok' };
    const letter = buildDeadLetter(inbound(100, headers), oversized, {
      consumerGroup: GROUP,
      limitBytes: 10_000,
    });
    expect(letter.form).toBe('reference-only');
    expect(letter.message.headers['x-huge']).toBeUndefined();
    expect(letter.message.headers['x-small']).toBeUndefined();
    expect(letter.message.headers).toMatchObject({
      'kafka_dlt-original-offset': Buffer.from([0, 0, 0, 0, 0, 0, 0, 41]),
      'mailbridge_dlt-value-replaced': 'reference',
      'mailbridge_dlt-headers-dropped': 'true',
    });
    const ref = reference(letter.message.value);
    expect(ref.droppedHeaderCount).toBe(2);
    expect(ref.droppedHeaderBytes).toBeGreaterThanOrEqual(20_000 + 'x-huge'.length + 9);
    expect(letter.estimatedBytes).toBeLessThanOrEqual(10_000 - DEAD_LETTER_MARGIN_BYTES);
  });

  it('drops the key too when even that would not fit, and always returns the minimal form', () => {
    const message = { ...inbound(100), key: Buffer.alloc(50_000, 'k') };
    const letter = buildDeadLetter(message, oversized, {
      consumerGroup: GROUP,
      limitBytes: 10_000,
    });
    expect(letter.form).toBe('minimal');
    expect(letter.message.key).toBeNull();
    expect(letter.message.headers['mailbridge_dlt-key-dropped']).toBe('true');
    expect(reference(letter.message.value).droppedKeyBytes).toBe(50_000);
    // Nothing smaller exists: a limit below it still gets the minimal form, for the broker to judge.
    expect(buildDeadLetter(message, oversized, { consumerGroup: GROUP, limitBytes: 10 }).form).toBe(
      'minimal',
    );
  });

  it('starts at the form it is told to after a refusal, and names the refusal as the reason', () => {
    const letter = buildDeadLetter(inbound(10), oversized, {
      consumerGroup: GROUP,
      limitBytes: KAFKA_DEFAULT_MAX_MESSAGE_BYTES,
      atLeast: 'reference',
      reason: 'refused-by-broker',
    });
    expect(letter.form).toBe('reference');
    expect(reference(letter.message.value).reason).toBe('refused-by-broker');
  });

  it('carries no byte of the original value in a reference', () => {
    const message = { ...inbound(0), value: Buffer.from('{"email":"ada@example.com"}') };
    const letter = buildDeadLetter(message, oversized, {
      consumerGroup: GROUP,
      limitBytes: 1000,
      atLeast: 'reference',
    });
    expect(String(letter.message.value)).not.toContain('ada@example.com');
    expect(JSON.stringify(letter.message.headers)).not.toContain('ada@example.com');
  });
});

describe(estimateRecordBytes.name, () => {
  it('is never below the size of the record batch the broker checks, and close to it', () => {
    const cases = [
      { key: Buffer.from('k'), value: Buffer.alloc(0), headers: {} },
      { key: Buffer.from('user-7'), value: Buffer.alloc(1_048_400), headers: { a: 'b' } },
      {
        key: Buffer.alloc(300),
        value: Buffer.alloc(70_000),
        headers: Object.fromEntries(
          Array.from({ length: 40 }, (_, i) => [`x-h${i}`, 'é'.repeat(i * 10)]),
        ),
      },
    ];
    for (const { key, value, headers } of cases) {
      const exact = exactBatchBytes(key, value, headers);
      const estimate = estimateRecordBytes(key, value, headers);
      expect(estimate).toBeGreaterThanOrEqual(exact);
      expect(estimate - exact).toBeLessThan(100 + 10 * Object.keys(headers).length);
    }
  });

  it('counts every element of an array header and UTF-8 bytes, not characters', () => {
    const one = estimateRecordBytes(null, null, { h: 'é' });
    const two = estimateRecordBytes(null, null, { h: ['é', 'é'] });
    expect(two - one).toBe(10 + 1 + 2);
    expect(estimateRecordBytes(null, 'é', {}) - estimateRecordBytes(null, 'e', {})).toBe(1);
  });
});

describe(formAfterRefusal.name, () => {
  it('goes to a reference once, then to the minimal form, then gives up', () => {
    expect(formAfterRefusal('original')).toBe('reference');
    expect(formAfterRefusal('reference')).toBe('minimal');
    expect(formAfterRefusal('reference-only')).toBe('minimal');
    expect(formAfterRefusal('minimal')).toBeUndefined();
  });
});

describe(isMessageTooLarge.name, () => {
  const tooLarge = new KafkaJSProtocolError({
    type: 'MESSAGE_TOO_LARGE',
    code: 10,
    retriable: false,
    message: 'The request included a message larger than the max message size',
  } as unknown as Error);

  /** What kafkajs' retrier rejects with on a non-retriable error (its types omit `cause`). */
  const wrapped = (e: Error) => Object.assign(new KafkaJSNonRetriableError(e), { cause: e });

  it('finds the broker refusal as kafkajs raises it, wrapped by its retrier', () => {
    expect(isMessageTooLarge(tooLarge)).toBe(true);
    expect(isMessageTooLarge(wrapped(tooLarge))).toBe(true);
  });

  it('does not take other failures for it', () => {
    expect(isMessageTooLarge(new Error('broker down'))).toBe(false);
    expect(isMessageTooLarge(undefined)).toBe(false);
    const other = new KafkaJSProtocolError({
      type: 'NOT_LEADER_FOR_PARTITION',
    } as unknown as Error);
    expect(isMessageTooLarge(wrapped(other))).toBe(false);
  });
});
