import { plainToInstance } from 'class-transformer';
import { validate, type ValidationError } from 'class-validator';
import { INBOUND_CONTRACTS, type InboundEvent } from '../contracts/inbound-contracts';
import {
  checkCloudEvent,
  eventMode,
  fromBinaryMode,
  isStructuredContentType,
  safeName,
} from './cloud-event';
import type { ConsumedRecord } from '../kafka/consumed-record';
import { InvalidEventError } from './invalid-event.error';
import { checkJsonLimits } from './json-limits';
import { decodeUtf8, headerText } from './record-encoding';
import type { TypesByTopic } from './topic-types';

export interface ParseOptions {
  /** Larger records are refused before a byte of them is decoded (MAX_EVENT_BYTES). */
  maxBytes: number;
  /** The event types each topic may carry; build it with `typesByTopic(config.topics)`. */
  typesByTopic: TypesByTopic;
}

/**
 * Turns a Kafka record into a validated, typed event, or throws {@link InvalidEventError}; it
 * never throws anything else. Accepts a plain JSON envelope (`{id, type, time, data}`), a
 * CloudEvents 1.0 structured event and a CloudEvents binary-mode record (`ce_*` headers, the
 * value being `data`). This is the one place inbound bytes become types. Cheap, bounded checks
 * come first; nothing recursive runs before `checkJsonLimits` has bounded depth and size.
 */
export async function parseEvent(
  message: ConsumedRecord,
  { maxBytes, typesByTopic }: ParseOptions,
): Promise<InboundEvent> {
  const { plain: record, cloudEvent } = readRecord(message, maxBytes);
  // The envelope is checked before its `type` is trusted to pick a contract.
  const plain = cloudEvent ? checkCloudEvent(record) : record;
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
  return validated(type, plain);
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
  const plain = mode === 'binary' ? fromBinaryMode(message.headers, json) : json;
  checkJsonLimits(plain);
  if (typeof plain !== 'object' || plain === null || Array.isArray(plain)) {
    throw new InvalidEventError('UNPARSEABLE', 'message is not a JSON object');
  }
  const event = plain as Record<string, unknown>;
  const cloudEvent =
    mode === 'binary' || 'specversion' in event || isStructuredContentType(contentType);
  return { plain: event, cloudEvent };
}

async function validated(type: string, plain: Record<string, unknown>): Promise<InboundEvent> {
  let errors: ValidationError[];
  let event: object;
  try {
    event = plainToInstance(INBOUND_CONTRACTS[type], plain);
    errors = await validate(event, {
      forbidUnknownValues: true,
      whitelist: true,
      forbidNonWhitelisted: true,
    });
  } catch (cause) {
    // The limits above should leave nothing to throw; if a library still does, the record must
    // still reach an outcome rather than hold its partition.
    throw new InvalidEventError('INVALID', `${type} could not be validated`, { cause });
  }
  const unknown = flatten(errors, (rule) => rule === 'whitelistValidation');
  if (unknown.length > 0) {
    throw new InvalidEventError(
      'UNKNOWN_FIELD',
      `${type} has unknown fields: ${unknown.join('; ')}`,
    );
  }
  if (errors.length > 0) {
    throw new InvalidEventError('INVALID', `${type} is invalid: ${flatten(errors).join('; ')}`);
  }
  return event as InboundEvent;
}

function describeType(type: unknown): string {
  if (typeof type !== 'string') return '(missing)';
  return /^[a-z0-9_.-]{1,100}$/i.test(type) ? `'${type}'` : '(malformed)';
}

/**
 * `data.email fails isEmail` style messages: property paths and rules, never values. A property
 * name comes from the input when it is an unknown field, so it is quoted only if it looks like one.
 */
function flatten(
  errors: ValidationError[],
  include: (rule: string) => boolean = () => true,
  prefix = '',
): string[] {
  return errors.flatMap((error) => {
    const name = /^[A-Za-z0-9_$-]{1,64}$/.test(error.property) ? error.property : '(unnamed)';
    const path = `${prefix}${name}`;
    const own = Object.keys(error.constraints ?? {})
      .filter(include)
      .map((rule) => (rule === 'whitelistValidation' ? path : `${path} fails ${rule}`));
    return [...own, ...flatten(error.children ?? [], include, `${path}.`)];
  });
}
