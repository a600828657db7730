import type { TopicsConfig } from '../config/app-config';
import {
  contractSchemas,
  DEAD_LETTER_HEADERS_SCHEMA,
  RESULT_CLOUDEVENT_SCHEMA,
} from '../contracts/contract-schemas';
import { INBOUND_SCHEMAS, type JsonSchema } from '../contracts/json-schema';
import {
  CLOUDEVENTS_STRUCTURED_CONTENT_TYPE,
  CONTENT_TYPE_HEADER,
  INBOUND_CLOUDEVENT_HEADERS,
  JSON_CONTENT_TYPE,
  RESULT_CLOUDEVENT_HEADERS,
  TRACEPARENT_HEADER,
  type HeaderSpec,
} from '../contracts/kafka-headers';
import { CHANNELS, DEFAULTS, defaultTopics, type ChannelSpec } from './asyncapi.channels';
import { EXAMPLE_TIME, INBOUND_EXAMPLES, RESULT_EXAMPLES } from './asyncapi.examples';

type Doc = Record<string, unknown>;

/** The version of the document's API: raised with every contract change that publishes one. */
const API_VERSION = '1.0.0';
const KAFKA_BINDING = '0.5.0';
const STRUCTURED = 'application/cloudevents+json';

const ref = (to: string) => ({ $ref: to });
const schemaRef = (name: string) => ref(`#/components/schemas/${name}`);

/**
 * mailbridge's AsyncAPI 3.0 document, generated from the contract classes (their JSON Schemas),
 * the header declarations and the topic settings: `topics` are the configured names (the
 * committed document has the defaults). `npm run contracts:generate` writes it; the service
 * serves it at `/asyncapi.json` with its own topic names.
 */
export function asyncApiDocument(topics: TopicsConfig = defaultTopics()): Doc {
  const channels: Doc = {};
  const operations: Doc = {};
  for (const spec of CHANNELS) {
    const messages = messagesOf(spec);
    channels[spec.id] = {
      address: topics[spec.id],
      title: spec.type ?? 'dead letters',
      description: `Topic set by ${spec.variable} (default \`${DEFAULTS[spec.variable]}\`).`,
      messages,
    };
    const receive = spec.kind === 'inbound';
    operations[`${receive ? 'receive' : 'send'}${spec.id[0].toUpperCase()}${spec.id.slice(1)}`] = {
      action: receive ? 'receive' : 'send',
      channel: ref(`#/channels/${spec.id}`),
      messages: Object.keys(messages).map((m) => ref(`#/channels/${spec.id}/messages/${m}`)),
      ...(receive
        ? {
            bindings: {
              kafka: {
                groupId: { type: 'string', description: 'KAFKA_GROUP_ID', enum: [DEFAULTS.KAFKA_GROUP_ID] },
                bindingVersion: KAFKA_BINDING,
              },
            },
          }
        : {}),
    };
  }
  return {
    asyncapi: '3.0.0',
    info: { title: 'mailbridge', version: API_VERSION, description: DESCRIPTION },
    defaultContentType: JSON_CONTENT_TYPE,
    servers: {
      kafka: {
        host: '{brokers}',
        protocol: 'kafka',
        description: 'The Kafka cluster mailbridge is configured with.',
        variables: { brokers: { description: 'KAFKA_BROKERS: comma-separated host:port' } },
      },
    },
    channels,
    operations,
    components: { schemas: componentSchemas() },
  };
}

const DESCRIPTION = `Event-driven transactional email. Other services publish the inbound events; mailbridge
sends them through the email vendor and publishes one result per event and template, or a dead letter.

Every topic name is a setting (the channel says which); this document names the defaults, and the
running service serves it with its own names at \`/asyncapi.json\`.

**CloudEvents 1.0, Kafka protocol binding.** Inbound, an event is a structured-mode CloudEvent when
\`content-type\` is \`${STRUCTURED}\`, a binary-mode one (attributes in \`ce_\` headers, the value
is \`data\`) when it has \`ce_\` headers, and otherwise a plain JSON envelope. Results are
binary-mode CloudEvents by default, structured with RESULT_EVENT_MODE=structured; their \`source\` is
RESULT_EVENT_SOURCE (default \`mailbridge\`), and the extension attribute \`sourceeventid\` is the id of
the event they answer.

**Keys, partitions, ordering.** mailbridge needs no particular partition count (KAFKA_TOPIC_PARTITIONS,
default ${DEFAULTS.KAFKA_TOPIC_PARTITIONS}, is used only when it creates missing topics). Replicas of one
consumer group share the inbound partitions. A result and a dead letter carry the key of the record
they come from, so they land on the partition of that key. Events of one partition are batched and sent
concurrently: results may come in another order than their events; correlate them by \`sourceeventid\`
and deduplicate them by \`id\`.`;

function messagesOf(spec: ChannelSpec): Doc {
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
  const header = (h: HeaderSpec, extra: JsonSchema = {}) => ({
    [h.name]: { type: 'string', description: h.description, ...extra },
  });
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
      payload: {
        allOf: [
          schemaRef(type),
          { required: ['specversion', 'source'], properties: { specversion: { enum: ['1.0'] } } },
          ofType,
        ],
      },
      bindings: key,
      examples: [
        {
          name: 'structured',
          headers: { [CONTENT_TYPE_HEADER]: STRUCTURED },
          payload: { specversion: '1.0', ...attributes, datacontenttype: JSON_CONTENT_TYPE, data: example.data },
        },
      ],
    },
    binary: {
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
          payload: example.data,
        },
      ],
    },
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

function resultMessages(type: string): Doc {
  const data = RESULT_EXAMPLES[type];
  const attributes = {
    specversion: '1.0',
    id: '5f2b7c1e9a0d4e3f8b6a1c2d3e4f5a6b',
    source: 'mailbridge',
    type,
    time: EXAMPLE_TIME,
    sourceeventid: (data as { sourceEventId: string }).sourceEventId,
  };
  const key = keyBinding('The key of the event it answers (none if that had none).');
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
    binary: {
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
    },
    structured: {
      name: `${type}.structured`,
      title: `${type} (structured)`,
      summary: `${type} as a structured-mode CloudEvent (RESULT_EVENT_MODE=structured).`,
      contentType: STRUCTURED,
      headers: headersSchema(
        { [CONTENT_TYPE_HEADER]: contentType(CLOUDEVENTS_STRUCTURED_CONTENT_TYPE, 'enum'), ...traceparent() },
        [CONTENT_TYPE_HEADER],
      ),
      payload: {
        allOf: [
          schemaRef(RESULT_CLOUDEVENT_SCHEMA),
          { properties: { type: { enum: [type] }, data: schemaRef(type) } },
        ],
      },
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

/** Every published schema and the classes they nest, with `$ref`s pointing into the document. */
function componentSchemas(): Record<string, JsonSchema> {
  const schemas: Record<string, JsonSchema> = {};
  for (const { name, schema } of contractSchemas()) {
    // The document is their one base: no `$id`, and their definitions beside them.
    const { definitions, ...rest } = schema;
    delete rest.$schema;
    delete rest.$id;
    schemas[name] = rest;
    Object.assign(schemas, definitions ?? {});
  }
  return JSON.parse(
    JSON.stringify(schemas).replaceAll('"#/definitions/', '"#/components/schemas/'),
  ) as Record<string, JsonSchema>;
}
