import type { IHeaders } from 'kafkajs';
import { DEAD_LETTER_HEADERS, type DeadLetterHeader } from './kafka-headers';

/**
 * The names of the headers a dead letter carries beside the original record's own, under the names
 * Spring Kafka's `DeadLetterPublishingRecoverer` writes (`KafkaHeaders.DLT_*`), so that tools built
 * for Spring-based consumers read mailbridge's dead letters as they read their own. The encoding
 * is Spring's too: partition a 4-byte big-endian int, offset and timestamp 8-byte big-endian longs
 * (Java's `ByteBuffer.putInt` / `putLong`), everything else UTF-8 text. Names, encodings and
 * descriptions are declared once, in `DEAD_LETTER_HEADERS` (which the AsyncAPI document reads).
 * `kafka_dlt-exception-fqcn` is a stable, class-like name per kind of failure
 * (`mailbridge.InvalidEventError.<code>`), so a tool that groups by exception class groups by cause.
 */
export const DLT_HEADERS = Object.fromEntries(
  Object.entries(DEAD_LETTER_HEADERS).map(([key, header]) => [key, header.name]),
) as { readonly [K in DeadLetterHeader]: (typeof DEAD_LETTER_HEADERS)[K]['name'] };

/** Names of the error headers mailbridge wrote before it used Spring Kafka's (`dlq-*`). */
export const LEGACY_DLQ_HEADER_PREFIX = 'dlq-';

/** Prefixes of every header a dead letter adds to the original's: what a redrive removes. */
export const DEAD_LETTER_HEADER_PREFIXES = [
  'kafka_dlt-',
  'mailbridge_dlt-',
  LEGACY_DLQ_HEADER_PREFIX,
] as const;

export type TimestampType = 'CreateTime' | 'LogAppendTime';

/** The dead-letter headers' values, decoded. */
export interface DeadLetterInfo {
  originalTopic: string;
  originalPartition: number;
  /** A decimal string, as kafkajs gives offsets (a long may exceed 2^53). */
  originalOffset: string;
  /** Milliseconds since the epoch, as a decimal string. */
  originalTimestamp: string;
  originalTimestampType?: TimestampType;
  originalConsumerGroup?: string;
  exceptionFqcn?: string;
  exceptionMessage?: string;
  errorCode?: string;
  /** The value is a reference to the original, not the original (it did not fit). */
  valueReplaced: boolean;
}

export function encodeInt32(value: number): Buffer {
  const buffer = Buffer.alloc(4);
  buffer.writeInt32BE(value);
  return buffer;
}

/** `value`: a decimal string or number (Kafka offsets and timestamps as kafkajs gives them). */
export function encodeInt64(value: string | number): Buffer {
  const buffer = Buffer.alloc(8);
  buffer.writeBigInt64BE(BigInt(value));
  return buffer;
}

export function decodeInt32(value: Buffer): number {
  if (value.length !== 4) throw new Error(`expected 4 bytes, got ${value.length}`);
  return value.readInt32BE();
}

export function decodeInt64(value: Buffer): string {
  if (value.length !== 8) throw new Error(`expected 8 bytes, got ${value.length}`);
  return value.readBigInt64BE().toString();
}

/** The `mailbridge.InvalidEventError.<code>` name of a failure (see {@link DLT_HEADERS}). */
export function exceptionFqcn(errorName: string, code?: string): string {
  return code ? `mailbridge.${errorName}.${code}` : `mailbridge.${errorName}`;
}

/**
 * Reads the dead-letter headers of a record from the dead-letter topic: Spring Kafka's names
 * (binary numbers), or the `dlq-*` names (text) of dead letters written before them. Throws an
 * error naming the header when one is missing or malformed; undefined when the record carries
 * neither scheme.
 */
export function readDeadLetterHeaders(headers: IHeaders | undefined): DeadLetterInfo | undefined {
  const h = headers ?? {};
  if (h[DLT_HEADERS.originalTopic] !== undefined) return readSpringScheme(h);
  if (h['dlq-original-topic'] !== undefined) return readLegacyScheme(h);
  return undefined;
}

/** Whether a header is one a dead letter added (and a redrive removes). */
export function isDeadLetterHeader(name: string): boolean {
  return DEAD_LETTER_HEADER_PREFIXES.some((prefix) => name.startsWith(prefix));
}

function readSpringScheme(h: IHeaders): DeadLetterInfo {
  const type = text(h, DLT_HEADERS.originalTimestampType);
  if (type !== undefined && type !== 'CreateTime' && type !== 'LogAppendTime') {
    throw new Error(`${DLT_HEADERS.originalTimestampType} is not CreateTime or LogAppendTime`);
  }
  return {
    originalTopic: required(h, DLT_HEADERS.originalTopic).toString('utf8'),
    originalPartition: decoded(h, DLT_HEADERS.originalPartition, decodeInt32),
    originalOffset: decoded(h, DLT_HEADERS.originalOffset, decodeInt64),
    originalTimestamp: decoded(h, DLT_HEADERS.originalTimestamp, decodeInt64),
    originalTimestampType: type,
    originalConsumerGroup: text(h, DLT_HEADERS.originalConsumerGroup),
    exceptionFqcn: text(h, DLT_HEADERS.exceptionFqcn),
    exceptionMessage: text(h, DLT_HEADERS.exceptionMessage),
    errorCode: text(h, DLT_HEADERS.errorCode),
    valueReplaced: text(h, DLT_HEADERS.valueReplaced) !== undefined,
  };
}

function readLegacyScheme(h: IHeaders): DeadLetterInfo {
  const partition = Number(required(h, 'dlq-original-partition').toString('utf8'));
  if (!Number.isInteger(partition)) throw new Error('dlq-original-partition is not an integer');
  const offset = required(h, 'dlq-original-offset').toString('utf8');
  if (!/^\d+$/.test(offset)) throw new Error('dlq-original-offset is not an integer');
  const errorClass = text(h, 'dlq-error-class');
  const errorCode = text(h, 'dlq-error-code');
  return {
    originalTopic: required(h, 'dlq-original-topic').toString('utf8'),
    originalPartition: partition,
    originalOffset: offset,
    originalTimestamp: text(h, 'dlq-original-timestamp') ?? '-1',
    exceptionFqcn: errorClass ? exceptionFqcn(errorClass, errorCode) : undefined,
    exceptionMessage: text(h, 'dlq-error-message'),
    errorCode,
    valueReplaced: text(h, 'dlq-value-replaced') !== undefined,
  };
}

/** One header's bytes; a header sent more than once counts by its last value, as Spring's `lastHeader`. */
function raw(h: IHeaders, name: string): Buffer | undefined {
  const value = h[name];
  const last = Array.isArray(value) ? value[value.length - 1] : value;
  if (last === undefined) return undefined;
  return typeof last === 'string' ? Buffer.from(last, 'utf8') : last;
}

function required(h: IHeaders, name: string): Buffer {
  const value = raw(h, name);
  if (value === undefined) throw new Error(`dead letter without ${name}`);
  return value;
}

function decoded<T>(h: IHeaders, name: string, decode: (value: Buffer) => T): T {
  try {
    return decode(required(h, name));
  } catch (error) {
    throw new Error(`${name}: ${(error as Error).message}`, { cause: error });
  }
}

function text(h: IHeaders, name: string): string | undefined {
  return raw(h, name)?.toString('utf8');
}
