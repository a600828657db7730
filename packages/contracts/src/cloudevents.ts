import { CloudEvent, Kafka, ValidationError, type CloudEventV1 } from 'cloudevents';
import type { InboundEvent } from './inbound.js';
import { headerText, type EncodedRecord, type KafkaRecord } from './kafka-record.js';
import {
  isResultType,
  type ContentMode,
  type MailbridgeResult,
  type ResultEvent,
  type ResultType,
} from './results.js';
import { defaultValidator, SchemaValidationError, type SchemaValidator } from './validation.js';

const JSON_TYPE = 'application/json';
/** CloudEvents 1.0 context attributes and `data`: no extension may take these names. */
const CONTEXT_ATTRIBUTES = new Set([
  'id',
  'source',
  'specversion',
  'type',
  'datacontenttype',
  'dataschema',
  'subject',
  'time',
  'data',
  'data_base64',
]);

export interface EncodeOptions {
  /** `binary` (default): `ce_` headers, the value is `data`; `structured`: the whole event as JSON. */
  mode?: ContentMode;
  /** The record key (default: the event's `id`); mailbridge keys each result like its event. */
  key?: string;
  /** More headers (`traceparent`, `tracestate`, `correlation-id` travel on to the results). */
  headers?: Record<string, string>;
  /** Check the event against its JSON Schema first (throws {@link SchemaValidationError}). */
  validate?: boolean | SchemaValidator;
}

/** An inbound event with the `source` CloudEvents requires. */
export type PublishableEvent = InboundEvent & { source: string };

/**
 * The Kafka record of `event` as a CloudEvent, in binary or structured content mode (CloudEvents
 * Kafka protocol binding), through the `cloudevents` SDK, which checks the attributes
 * (`ValidationError`). The result is a kafkajs `Message`:
 * `producer.send({ topic: INBOUND_TOPICS[event.type], messages: [encodeEvent(event)] })`.
 */
export function encodeEvent(event: PublishableEvent, options: EncodeOptions = {}): EncodedRecord {
  const { mode = 'binary', key = event.id, headers = {}, validate = false } = options;
  const { extensions = {}, ...contract } = event;
  if (validate) {
    const validator = validate === true ? defaultValidator() : validate;
    const result = validator.validate(event.type, contract);
    if (!result.valid) throw new SchemaValidationError(event.type, result.errors);
  }
  const taken = Object.keys(extensions).filter((name) => CONTEXT_ATTRIBUTES.has(name));
  if (taken.length > 0) throw new TypeError(`not extension names: ${taken.join(', ')}`);
  const cloudEvent = new CloudEvent<InboundEvent['data']>({
    ...extensions,
    ...withoutUndefined(contract),
    specversion: '1.0',
    datacontenttype: JSON_TYPE,
  });
  if (mode === 'structured') {
    const message = Kafka.structured(cloudEvent);
    return {
      key,
      value: String(message.value),
      headers: { ...headers, ...textHeaders(message.headers) },
    };
  }
  const message = Kafka.binary(cloudEvent);
  const ceHeaders = textHeaders(message.headers);
  // The binding maps datacontenttype to content-type in binary mode, not to a ce_ header.
  delete ceHeaders.ce_datacontenttype;
  return { key, value: JSON.stringify(cloudEvent.data), headers: { ...headers, ...ceHeaders } };
}

export interface DecodeOptions {
  /** Check the result's `data` against its type's JSON Schema (throws {@link SchemaValidationError}). */
  validate?: boolean | SchemaValidator;
}

/** A record that is not a mailbridge result CloudEvent (a dead letter, another event, bad JSON). */
export class ResultDecodeError extends Error {
  override readonly name = 'ResultDecodeError';
}

/**
 * The mailbridge result a consumed record carries, in either content mode: structured when its
 * `content-type` is `application/cloudevents+json`, binary otherwise (CloudEvents Kafka protocol
 * binding), read with the `cloudevents` SDK (`Kafka.toEvent`). Narrow it on `type`.
 */
export function decodeResult(record: KafkaRecord, options: DecodeOptions = {}): MailbridgeResult {
  const headers = Object.fromEntries(
    Object.keys(record.headers ?? {})
      .map((name) => [name, headerText(record.headers, name)] as const)
      .filter((entry): entry is readonly [string, string] => entry[1] !== undefined),
  );
  const value = record.value?.toString();
  const key = record.key == null ? null : record.key.toString();
  const message = { key: key ?? '', value, headers, body: value };
  if (!Kafka.isEvent(message)) throw new ResultDecodeError('the record is not a CloudEvent');
  const mode: ContentMode = /^application\/cloudevents\+json/i.test(headers['content-type'] ?? '')
    ? 'structured'
    : 'binary';
  let cloudEvent: CloudEventV1<unknown>;
  try {
    const decoded = Kafka.toEvent(message);
    if (Array.isArray(decoded))
      throw new ResultDecodeError('a batch of CloudEvents is not a result');
    (decoded as CloudEvent<unknown>).validate();
    cloudEvent = decoded;
  } catch (error) {
    if (error instanceof ResultDecodeError) throw error;
    const reason =
      error instanceof ValidationError || error instanceof SyntaxError
        ? error.message
        : String(error);
    throw new ResultDecodeError(`not a valid CloudEvent: ${reason}`, { cause: error });
  }
  const { type, sourceeventid } = cloudEvent as CloudEventV1<unknown> & { sourceeventid?: unknown };
  if (!isResultType(type)) throw new ResultDecodeError(`${type} is not a mailbridge result type`);
  if (typeof sourceeventid !== 'string') throw new ResultDecodeError('no sourceeventid attribute');
  if (typeof cloudEvent.data !== 'object' || cloudEvent.data === null) {
    throw new ResultDecodeError(`${type} has no JSON object as data`);
  }
  if (options.validate) {
    const validator = options.validate === true ? defaultValidator() : options.validate;
    const result = validator.validate(type, cloudEvent.data);
    if (!result.valid) throw new SchemaValidationError(type, result.errors);
  }
  const traceparent = headers.traceparent;
  const result: ResultEvent<ResultType, unknown> = {
    specversion: '1.0',
    id: cloudEvent.id,
    type,
    source: cloudEvent.source,
    time: cloudEvent.time ?? '',
    sourceeventid,
    ...(cloudEvent.datacontenttype ? { datacontenttype: cloudEvent.datacontenttype } : {}),
    data: cloudEvent.data,
    record: { key, mode, ...(traceparent ? { traceparent } : {}) },
  };
  return result as MailbridgeResult;
}

/** The event's attributes and data, without the optional ones left undefined. */
function withoutUndefined(event: object): Partial<CloudEventV1<InboundEvent['data']>> {
  return Object.fromEntries(Object.entries(event).filter(([, v]) => v !== undefined));
}

/** The SDK's headers as kafkajs takes them: strings, none undefined. */
function textHeaders(headers: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers)
      .filter(([, v]) => v !== undefined && v !== null)
      .map(([name, v]) => [name, String(v)]),
  );
}
