import { INBOUND_CONTRACTS, type InboundEvent } from '../contracts/inbound-contracts';
import {
  checkCloudEvent,
  eventMode,
  type Extensions,
  fromBinaryMode,
  isStructuredContentType,
  safeName,
} from './cloud-event';
import type { ConsumedRecord } from '../kafka/consumed-record';
import { validateEvent, type IgnoredFieldsListener } from './event.validator';
import { InvalidEventError } from './invalid-event.error';
import { checkJsonLimits } from './json-limits';
import { decodeUtf8, headerText } from './record-encoding';
import type { TypesByTopic } from './topic-types';

export interface ParseOptions {
  /** Larger records are refused before a byte of them is decoded (MAX_EVENT_BYTES). */
  maxBytes: number;
  /** The event types each topic may carry; build it with `typesByTopic(config.topics)`. */
  typesByTopic: TypesByTopic;
  /**
   * Told the paths of the `data` fields ignored in an accepted domain event (see
   * `validateEvent`), which are gone from the event returned. It runs inside validation: it must
   * not throw.
   */
  onIgnoredFields?: IgnoredFieldsListener;
}

/**
 * Turns a Kafka record into a validated, typed event, or throws {@link InvalidEventError}; it
 * never throws anything else. Accepts a plain JSON envelope (`{id, type, time, data}`), a
 * CloudEvents 1.0 structured event and a CloudEvents binary-mode record (`ce_*` headers, the
 * value being `data`). This is the one place inbound bytes become types. Cheap, bounded checks
 * come first; nothing recursive runs before `checkJsonLimits` has bounded depth and size. The
 * event returned is the parsed JSON itself, checked against its type's contract (a domain
 * event's unknown `data` fields removed).
 */
export function parseEvent(message: ConsumedRecord, options: ParseOptions): Promise<InboundEvent> {
  // Every refusal reaches the caller as a rejection.
  return new Promise((resolve) => resolve(eventOf(message, options)));
}

/** {@link parseEvent} without the promise: returns the event or throws InvalidEventError. */
export function eventOf(message: ConsumedRecord, options: ParseOptions): InboundEvent {
  const { type, plain, extensions } = readEvent(message, options);
  const event = validated(type, plain, options.onIgnoredFields);
  // Validated without them (no contract declares them), then kept on the event as received.
  if (extensions) event.extensions = extensions;
  return event;
}

/**
 * Everything {@link parseEvent} checks before the contract: bytes, JSON, limits, CloudEvents
 * attributes, a known type on its own topic. Returns the type and the event to validate.
 */
export function readEvent(
  message: ConsumedRecord,
  { maxBytes, typesByTopic }: ParseOptions,
): { type: string; plain: Record<string, unknown>; extensions?: Extensions } {
  const { plain: record, cloudEvent } = readRecord(message, maxBytes);
  // The envelope is checked before its `type` is trusted to pick a contract.
  const { envelope: plain, extensions } = cloudEvent
    ? checkCloudEvent(record)
    : { envelope: record, extensions: undefined };
  const type = plain.type;
  if (typeof type !== 'string' || !Object.hasOwn(INBOUND_CONTRACTS, type)) {
    throw new InvalidEventError('UNKNOWN_TYPE', `unknown event type ${describeType(type)}`);
  }
  if (!typesByTopic.get(message.topic)?.has(type)) {
    throw new InvalidEventError(
      'WRONG_TOPIC',
      `${type} is not accepted on topic ${safeName(message.topic)}`,
    );
  }
  return { type, plain, extensions };
}

function readRecord(
  message: ConsumedRecord,
  maxBytes: number,
): { plain: Record<string, unknown>; cloudEvent: boolean } {
  const value = message.value;
  if (!value || value.length === 0) throw new InvalidEventError('UNPARSEABLE', 'empty message');
  if (value.length > maxBytes) {
    throw new InvalidEventError(
      'OVERSIZED',
      `message of ${value.length} bytes exceeds ${maxBytes}`,
    );
  }
  const contentType = headerText(message.headers, 'content-type');
  const mode = eventMode(message.headers, contentType);
  const text = decodeUtf8(value, 'the value');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new InvalidEventError('UNPARSEABLE', 'message is not JSON');
  }
  const plain = mode === 'binary' ? fromBinaryMode(message.headers, json, contentType) : json;
  checkJsonLimits(plain);
  if (typeof plain !== 'object' || plain === null || Array.isArray(plain)) {
    throw new InvalidEventError('UNPARSEABLE', 'message is not a JSON object');
  }
  const event = plain as Record<string, unknown>;
  const cloudEvent =
    mode === 'binary' || 'specversion' in event || isStructuredContentType(contentType);
  return { plain: event, cloudEvent };
}

function validated(
  type: string,
  plain: Record<string, unknown>,
  onIgnored: IgnoredFieldsListener | undefined,
): InboundEvent {
  try {
    return validateEvent(type, plain, onIgnored);
  } catch (cause) {
    if (cause instanceof InvalidEventError) throw cause;
    // The limits above should leave nothing to throw; if a format check still does, the record
    // must still reach an outcome rather than hold its partition.
    throw new InvalidEventError('INVALID', `${type} could not be validated`, { cause });
  }
}

function describeType(type: unknown): string {
  if (typeof type !== 'string') return '(missing)';
  return /^[a-z0-9_.-]{1,100}$/i.test(type) ? `'${type}'` : '(malformed)';
}
