import {
  DEAD_LETTER_HEADERS_SCHEMA,
  RESULT_CLOUDEVENT_SCHEMA,
} from '../contracts/contract-schemas';
import { EMAIL_UNSUBSCRIBED_V1 } from '../contracts/email-unsubscribed.v1';
import { INBOUND_SCHEMAS, type JsonSchema } from '../contracts/json-schema';
import {
  CLOUDEVENTS_EXTENSION_NAME,
  CLOUDEVENTS_STRUCTURED_CONTENT_TYPE,
  CONTENT_TYPE_HEADER,
  MAX_EXTENSION_LENGTH,
  INBOUND_CLOUDEVENT_HEADERS,
  JSON_CONTENT_TYPE,
  RESULT_CLOUDEVENT_HEADERS,
  TRACEPARENT_HEADER,
  type HeaderSpec,
} from '../contracts/kafka-headers';
import type { ChannelSpec } from './asyncapi.channels';
import { EXAMPLE_TIME, INBOUND_EXAMPLES, RESULT_EXAMPLES } from './asyncapi.examples';

type Doc = Record<string, unknown>;

/** The version of the AsyncAPI Kafka bindings the document uses. */
export const KAFKA_BINDING = '0.5.0';
export const STRUCTURED = 'application/cloudevents+json';

const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/**
 * The messages of one channel of the AsyncAPI document, by id: for an inbound topic one per way
 * a producer may write the event (structured, binary, plain JSON), for a result topic one per
 * CloudEvents mode, for the dead-letter topic one. Each with its payload and header schemas, its
 * Kafka key and examples.
 */
export function messagesOf(spec: ChannelSpec): Doc {
  switch (spec.kind) {
    case 'inbound':
      return inboundMessages(spec.type!);
    case 'result':
      return resultMessages(spec.type!);
    case 'dead-letter':
      return { deadLetter: deadLetterMessage() };
  }
}

function inboundMessages(type: string): Doc {
  const example = INBOUND_EXAMPLES[type];
  const attributes = { id: 'evt-1', source: example.source, type, time: EXAMPLE_TIME };
  const ofType = { properties: { type: { enum: [type] } } };
  const key = keyBinding(
    'Chosen by the producer: mailbridge does not read it, and keys the results and dead letters of ' +
      'the event with it. Use what the events must stay in order for (a user id, an order id).',
  );
  return {
    structured: {
      name: `${type}.structured`,
      title: `${type} (structured)`,
      summary: `${type} as a structured-mode CloudEvent: the whole event in the value.`,
      contentType: STRUCTURED,
      headers: headersSchema(
        { [CONTENT_TYPE_HEADER]: contentType(STRUCTURED, 'pattern'), ...traceparent() },
        [CONTENT_TYPE_HEADER],
      ),
      payload: structuredPayload(type),
      bindings: key,
      examples: [
        {
          name: 'structured',
          headers: { [CONTENT_TYPE_HEADER]: STRUCTURED },
          payload: { specversion: '1.0', ...attributes, datacontenttype: JSON_CONTENT_TYPE, data: example.data },
        },
      ],
    },
    binary: inboundBinaryMessage(type, attributes, example.data, key),
    plain: {
      name: `${type}.plain`,
      title: `${type} (plain JSON)`,
      summary: `${type} as a plain JSON envelope, without CloudEvents headers or specversion.`,
      contentType: JSON_CONTENT_TYPE,
      headers: headersSchema({ [CONTENT_TYPE_HEADER]: JSON_MEDIA_TYPE, ...traceparent() }, []),
      payload: { allOf: [schemaRef(type), ofType] },
      bindings: key,
      examples: [{ name: 'plain', payload: { ...attributes, data: example.data } }],
    },
  };
}

/**
 * An inbound event as a binary-mode CloudEvent: its attributes in `ce_` headers, its data the
 * value.
 */
function inboundBinaryMessage(
  type: string,
  attributes: Record<string, string>,
  data: object,
  key: Doc,
): Doc {
  const header = (h: HeaderSpec, extra: JsonSchema = {}) => ({
    [h.name]: { type: 'string', description: h.description, ...extra },
  });
  return {
    name: `${type}.binary`,
    title: `${type} (binary)`,
    summary: `${type} as a binary-mode CloudEvent: attributes in ce_ headers, data in the value.`,
    contentType: JSON_CONTENT_TYPE,
    headers: headersSchema(
      {
        ...header(INBOUND_CLOUDEVENT_HEADERS.specversion, { enum: ['1.0'] }),
        ...header(INBOUND_CLOUDEVENT_HEADERS.id, { minLength: 1 }),
        ...header(INBOUND_CLOUDEVENT_HEADERS.source, { minLength: 1 }),
        ...header(INBOUND_CLOUDEVENT_HEADERS.type, { enum: [type] }),
        ...header(INBOUND_CLOUDEVENT_HEADERS.time, { format: 'date-time' }),
        ...header(INBOUND_CLOUDEVENT_HEADERS.datacontenttype),
        ...header(INBOUND_CLOUDEVENT_HEADERS.dataschema),
        ...header(INBOUND_CLOUDEVENT_HEADERS.subject),
        [CONTENT_TYPE_HEADER]: JSON_MEDIA_TYPE,
        ...traceparent(),
      },
      ['specversion', 'id', 'source', 'type', 'time'].map((a) => `ce_${a}`),
    ),
    payload: schemaRef(dataDefinition(type)),
    bindings: key,
    examples: [
      {
        name: 'binary',
        headers: {
          ce_specversion: '1.0',
          ...Object.fromEntries(Object.entries(attributes).map(([k, v]) => [`ce_${k}`, v])),
          [CONTENT_TYPE_HEADER]: JSON_CONTENT_TYPE,
        },
        payload: data,
      },
    ],
  };
}

function resultMessages(type: string): Doc {
  const data = RESULT_EXAMPLES[type];
  const attributes = {
    specversion: '1.0',
    id: '5f2b7c1e9a0d4e3f8b6a1c2d3e4f5a6b',
    source: 'mailbridge',
    type,
    time: EXAMPLE_TIME,
    // An unsubscribe answers no inbound event: its own id stands in (`email-unsubscribed.v1.ts`).
    sourceeventid:
      (data as { sourceEventId?: string }).sourceEventId ??
      (data as { unsubscribeId: string }).unsubscribeId,
  };
  const key = keyBinding(
    type === EMAIL_UNSUBSCRIBED_V1
      ? 'The unsubscribeId: never the address, which a compacted topic would keep for good.'
      : 'The key of the event it answers (none if that had none).',
  );
  return {
    binary: resultBinaryMessage(type, attributes, data, key),
    structured: {
      name: `${type}.structured`,
      title: `${type} (structured)`,
      summary: `${type} as a structured-mode CloudEvent (RESULT_EVENT_MODE=structured).`,
      contentType: STRUCTURED,
      headers: headersSchema(
        { [CONTENT_TYPE_HEADER]: contentType(CLOUDEVENTS_STRUCTURED_CONTENT_TYPE, 'enum'), ...traceparent() },
        [CONTENT_TYPE_HEADER],
      ),
      payload: structuredResultPayload(type),
      bindings: key,
      examples: [
        {
          name: 'structured',
          headers: { [CONTENT_TYPE_HEADER]: CLOUDEVENTS_STRUCTURED_CONTENT_TYPE },
          payload: { ...attributes, datacontenttype: JSON_CONTENT_TYPE, data },
        },
      ],
    },
  };
}

/**
 * A result's structured-mode value. `result-cloudevent.v1` lists the types of the results that
 * answer an inbound event, and subscribers may validate with it as published; the unsubscribe,
 * which answers none, has the same attributes written out here rather than a wider enum there.
 */
function structuredResultPayload(type: string): Doc {
  const own = { properties: { type: { enum: [type] }, data: schemaRef(type) } };
  if (type !== EMAIL_UNSUBSCRIBED_V1) return { allOf: [schemaRef(RESULT_CLOUDEVENT_SCHEMA), own] };
  const text = { type: 'string', minLength: 1 };
  return {
    type: 'object',
    required: ['specversion', 'id', 'source', 'type', 'time', 'datacontenttype', 'sourceeventid', 'data'],
    properties: {
      specversion: { enum: ['1.0'] },
      id: text,
      source: text,
      time: { type: 'string', format: 'date-time' },
      datacontenttype: { enum: [JSON_CONTENT_TYPE] },
      sourceeventid: { ...text, description: 'The unsubscribeId: no inbound event precedes it.' },
      ...own.properties,
    },
  };
}

/**
 * A result as a binary-mode CloudEvent (the default mode): its attributes in `ce_` headers, its
 * data the value.
 */
function resultBinaryMessage(
  type: string,
  attributes: Record<string, string>,
  data: object,
  key: Doc,
): Doc {
  const h = RESULT_CLOUDEVENT_HEADERS;
  const constraints: Record<string, JsonSchema> = {
    specversion: { enum: ['1.0'] },
    type: { enum: [type] },
    time: { format: 'date-time' },
  };
  const ceHeaders = Object.fromEntries(
    Object.entries(h).map(([attribute, spec]) => [
      spec.name,
      { type: 'string', description: spec.description, ...(constraints[attribute] ?? { minLength: 1 }) },
    ]),
  );
  return {
    name: `${type}.binary`,
    title: `${type} (binary)`,
    summary: `${type} as a binary-mode CloudEvent (the default): attributes in ce_ headers, data in the value.`,
    contentType: JSON_CONTENT_TYPE,
    headers: headersSchema(
      { ...ceHeaders, [CONTENT_TYPE_HEADER]: contentType(JSON_CONTENT_TYPE, 'enum'), ...traceparent() },
      [...Object.values(h).map((s) => s.name), CONTENT_TYPE_HEADER],
    ),
    payload: schemaRef(type),
    bindings: key,
    examples: [
      {
        name: 'binary',
        headers: {
          ...Object.fromEntries(Object.entries(attributes).map(([k, v]) => [`ce_${k}`, v])),
          [CONTENT_TYPE_HEADER]: JSON_CONTENT_TYPE,
        },
        payload: data,
      },
    ],
  };
}

function deadLetterMessage(): Doc {
  return {
    name: 'dead-letter',
    title: 'dead letter',
    summary: 'A record that can never succeed: the original key, value and headers, and why.',
    headers: schemaRef(DEAD_LETTER_HEADERS_SCHEMA),
    payload: {
      description:
        'The original value, byte for byte (it may not be JSON at all). When it did not fit the ' +
        'dead-letter topic (mailbridge_dlt-value-replaced: reference), a JSON object saying where ' +
        'the original is: originalTopic, originalPartition, originalOffset, originalSize, sha256.',
    },
    bindings: keyBinding('The original record’s key (left out only in the minimal form).'),
  };
}

/**
 * An inbound event as a structured-mode CloudEvent: its contract's envelope with `specversion`
 * 1.0 and `source` required, and beside its attributes any extension attribute (kept, not part
 * of the contract), as the Kafka binding allows; a plain envelope refuses unknown properties.
 */
function structuredPayload(type: string): JsonSchema {
  const envelope = INBOUND_SCHEMAS[type];
  const properties = JSON.parse(
    JSON.stringify(envelope.properties).replaceAll('"#/definitions/', '"#/components/schemas/'),
  ) as Record<string, JsonSchema>;
  return {
    type: 'object',
    properties: {
      ...properties,
      specversion: { type: 'string', enum: ['1.0'] },
      type: { type: 'string', enum: [type] },
    },
    required: [...(envelope.required as string[]), 'specversion', 'source'],
    propertyNames: { pattern: CLOUDEVENTS_EXTENSION_NAME.source },
    additionalProperties: {
      description: 'An extension attribute.',
      type: ['boolean', 'integer', 'string'],
      maxLength: MAX_EXTENSION_LENGTH,
    },
  };
}

/** The name of the class an inbound type's `data` is: the value of a binary-mode event. */
function dataDefinition(type: string): string {
  const data = (INBOUND_SCHEMAS[type].properties as Record<string, JsonSchema>).data;
  return String(data.$ref).replace('#/definitions/', '');
}

function headersSchema(properties: Record<string, JsonSchema>, required: string[]): JsonSchema {
  // Other headers (the producer's own, extension attributes as ce_*) are allowed and kept.
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
}

/** The media types an inbound value may have outside structured mode: JSON in UTF-8. */
const JSON_MEDIA_TYPE: JsonSchema = {
  type: 'string',
  description:
    'The value’s media type: JSON in UTF-8 (`application/json` or `application/*+json`, ' +
    '`charset=utf-8` if any); another is dead-lettered as UNSUPPORTED_CONTENT_TYPE.',
};

function contentType(value: string, match: 'enum' | 'pattern'): JsonSchema {
  const escaped = value.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  return {
    type: 'string',
    description: 'The value’s media type.',
    ...(match === 'enum' ? { enum: [value] } : { pattern: `^${escaped}(\\s*;.*)?$` }),
  };
}

function traceparent(): Record<string, JsonSchema> {
  return {
    [TRACEPARENT_HEADER]: {
      type: 'string',
      description: 'W3C Trace Context; carried from an event to its results.',
      pattern: '^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$',
    },
  };
}

function keyBinding(description: string): Doc {
  return { kafka: { key: { type: 'string', description }, bindingVersion: KAFKA_BINDING } };
}

