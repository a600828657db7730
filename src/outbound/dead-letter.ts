import { createHash } from 'node:crypto';
import type { IHeaders, Message } from 'kafkajs';
import {
  DLT_HEADERS,
  encodeInt32,
  encodeInt64,
  exceptionFqcn,
  isDeadLetterHeader,
} from '../contracts/dead-letter-headers';
import type { ConsumedRecord } from '../kafka/consumed-record';

/** Kafka's default `message.max.bytes`, used when the broker does not say otherwise. */
export const KAFKA_DEFAULT_MAX_MESSAGE_BYTES = 1_048_588;

/**
 * Room left under the topic's limit for what the estimate cannot see (a broker adding fields in a
 * newer record format, a header the client adds).
 */
export const DEAD_LETTER_MARGIN_BYTES = 512;

/** A record batch's header is 61 bytes in format v2; the rest is for the record's own framing. */
const RECORD_OVERHEAD_BYTES = 100;
/** A varint of a 32-bit length is at most 5 bytes; counting 5 for each keeps the estimate high. */
const VARINT_BYTES = 5;
/** In the minimal form the error message is cut short: what is left has to fit anywhere. */
const MINIMAL_ERROR_MESSAGE_CHARS = 200;

/**
 * How much of the original a dead letter carries, from everything to the least that still says
 * which record it was: each form is tried only when the one before it would not fit.
 */
export const DEAD_LETTER_FORMS = ['original', 'reference', 'reference-only', 'minimal'] as const;
export type DeadLetterForm = (typeof DEAD_LETTER_FORMS)[number];

/** Why a dead letter carries a reference instead of the original value. */
export type ReferenceReason = 'exceeds-topic-limit' | 'refused-by-broker';

/**
 * The value of a dead letter whose original value did not fit the dead-letter topic: where the
 * original is (its topic, partition and offset, for as long as its retention keeps it) and how to
 * recognise it, without any of its bytes.
 */
export interface DeadLetterReference {
  originalTopic: string;
  originalPartition: number;
  originalOffset: string;
  /** Bytes of the original value. */
  originalSize: number;
  /** Hex SHA-256 of the original value. */
  sha256: string;
  reason: ReferenceReason;
  /** The dead-letter topic's limit the dead letter was built for. */
  limitBytes: number;
  /** Set when the original headers were left out too: how many there were, and their bytes. */
  droppedHeaderCount?: number;
  droppedHeaderBytes?: number;
  /** Set when the original key was left out too (minimal form): its bytes. */
  droppedKeyBytes?: number;
}

export interface DeadLetterRecord {
  form: DeadLetterForm;
  message: Message & { key: Buffer | null; headers: IHeaders };
  /** The size the broker will see, estimated from above. */
  estimatedBytes: number;
}

export interface DeadLetterOptions {
  /** The dead-letter topic's `max.message.bytes`. */
  limitBytes: number;
  /** The consumer group that read the record (`kafka_dlt-original-consumer-group`). */
  consumerGroup: string;
  /** The least reduced form to consider: after a refusal, the forms before it are known not to fit. */
  atLeast?: DeadLetterForm;
  reason?: ReferenceReason;
}

type DeadLetterError = Error & { code?: string };

/**
 * Builds the dead letter of `message`: the original record with error headers when that fits the
 * topic's limit (less a margin), otherwise the first reduced form that does. The minimal form is
 * returned even when the estimate says it is too large: nothing smaller can be built.
 */
export function buildDeadLetter(
  message: ConsumedRecord,
  error: DeadLetterError,
  {
    limitBytes,
    consumerGroup,
    atLeast = 'original',
    reason = 'exceeds-topic-limit',
  }: DeadLetterOptions,
): DeadLetterRecord {
  const budget = limitBytes - DEAD_LETTER_MARGIN_BYTES;
  const forms = DEAD_LETTER_FORMS.slice(DEAD_LETTER_FORMS.indexOf(atLeast));
  let record: DeadLetterRecord | undefined;
  for (const form of forms) {
    record = buildForm(form, message, error, { limitBytes, reason, consumerGroup });
    if (record.estimatedBytes <= budget) return record;
  }
  return record!;
}

/** The form to try after `form` was refused by the broker as too large; undefined after the last. */
export function formAfterRefusal(form: DeadLetterForm): DeadLetterForm | undefined {
  switch (form) {
    case 'original':
      return 'reference';
    case 'reference':
    case 'reference-only':
      return 'minimal';
    case 'minimal':
      return undefined;
  }
}

/**
 * An upper bound of the bytes a record batch holding this one record takes on the broker, which
 * is what `max.message.bytes` limits: batch and record framing, key, value, and every header
 * name and value with its length.
 */
export function estimateRecordBytes(
  key: Buffer | string | null,
  value: Buffer | string | null,
  headers: IHeaders,
): number {
  const { bytes } = measureHeaders(headers);
  return (
    RECORD_OVERHEAD_BYTES +
    VARINT_BYTES * 3 + // key length, value length, header count
    byteLength(key) +
    byteLength(value) +
    bytes
  );
}

/** Whether `error`, or any error in its `cause` chain, is the broker refusing a record's size. */
export function isMessageTooLarge(error: unknown): boolean {
  for (let e = error, depth = 0; e && typeof e === 'object' && depth < 10; depth++) {
    const type = (e as { type?: unknown }).type;
    if (type === 'MESSAGE_TOO_LARGE' || type === 'RECORD_LIST_TOO_LARGE') return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

function buildForm(
  form: DeadLetterForm,
  message: ConsumedRecord,
  error: DeadLetterError,
  {
    limitBytes,
    reason,
    consumerGroup,
  }: { limitBytes: number; reason: ReferenceReason; consumerGroup: string },
): DeadLetterRecord {
  const errorHeaders = errorHeadersOf(message, error, consumerGroup, form === 'minimal');
  const originalHeaders = withoutDeadLetterHeaders(message.headers);
  let key = message.key;
  let value: Buffer | string | null = message.value;
  let headers: IHeaders = { ...originalHeaders, ...errorHeaders };
  if (form !== 'original') {
    const reference: DeadLetterReference = {
      originalTopic: message.topic,
      originalPartition: message.partition,
      originalOffset: message.offset,
      originalSize: byteLength(message.value),
      sha256: createHash('sha256')
        .update(message.value ?? Buffer.alloc(0))
        .digest('hex'),
      reason,
      limitBytes,
    };
    headers[DLT_HEADERS.valueReplaced] = 'reference';
    if (form === 'reference-only' || form === 'minimal') {
      const dropped = measureHeaders(originalHeaders);
      reference.droppedHeaderCount = dropped.count;
      reference.droppedHeaderBytes = dropped.bytes;
      headers = {
        ...errorHeaders,
        [DLT_HEADERS.valueReplaced]: 'reference',
        [DLT_HEADERS.headersDropped]: 'true',
      };
    }
    if (form === 'minimal') {
      reference.droppedKeyBytes = byteLength(message.key);
      key = null;
      headers[DLT_HEADERS.keyDropped] = 'true';
    }
    value = JSON.stringify(reference);
  }
  return {
    form,
    message: { key, value, headers },
    estimatedBytes: estimateRecordBytes(key, value, headers),
  };
}

/**
 * Where the record came from and why it is here, under Spring Kafka's names and in its encoding
 * (numbers as big-endian binary: see `contracts/dead-letter-headers.ts`); no value bytes, so no
 * personal data.
 */
function errorHeadersOf(
  message: ConsumedRecord,
  error: DeadLetterError,
  consumerGroup: string,
  minimal: boolean,
): IHeaders {
  const chars = minimal ? MINIMAL_ERROR_MESSAGE_CHARS : 1000;
  return {
    [DLT_HEADERS.originalTopic]: message.topic,
    [DLT_HEADERS.originalPartition]: encodeInt32(message.partition),
    [DLT_HEADERS.originalOffset]: encodeInt64(message.offset),
    // Kafka always gives a number; anything else must not keep the record from its dead letter.
    [DLT_HEADERS.originalTimestamp]: encodeInt64(
      /^-?\d{1,19}$/.test(message.timestamp) ? message.timestamp : -1,
    ),
    [DLT_HEADERS.originalTimestampType]: message.timestampType ?? 'CreateTime',
    [DLT_HEADERS.originalConsumerGroup]: consumerGroup,
    [DLT_HEADERS.exceptionFqcn]: exceptionFqcn(error.name, error.code),
    [DLT_HEADERS.exceptionMessage]: error.message.slice(0, chars),
    ...(error.code ? { [DLT_HEADERS.errorCode]: error.code } : {}),
  };
}

/**
 * The record's headers less any under a dead-letter prefix: whoever sent them, a dead letter's
 * headers of those names are the service's own (a sent `mailbridge_dlt-value-replaced` would
 * make the redrive skip a full value as a reference).
 */
function withoutDeadLetterHeaders(headers: IHeaders): IHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !isDeadLetterHeader(name)));
}

/** Kafka headers as the broker counts them: an array value is one header per element. */
function measureHeaders(headers: IHeaders): { count: number; bytes: number } {
  let count = 0;
  let bytes = 0;
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) {
      count += 1;
      bytes += VARINT_BYTES * 2 + Buffer.byteLength(name) + byteLength(one);
    }
  }
  return { count, bytes };
}

function byteLength(data: Buffer | string | null | undefined): number {
  if (data === null || data === undefined) return 0;
  return typeof data === 'string' ? Buffer.byteLength(data) : data.length;
}
