import type { TopicsConfig } from '../config/app-config';
import { contractSchemas } from '../contracts/contract-schemas';
import type { JsonSchema } from '../contracts/json-schema';
import { JSON_CONTENT_TYPE } from '../contracts/kafka-headers';
import { CHANNELS, DEFAULTS, defaultTopics } from './asyncapi.channels';
import { KAFKA_BINDING, messagesOf, STRUCTURED } from './asyncapi.messages';

type Doc = Record<string, unknown>;

/** The version of the document's API: raised with every contract change that publishes one. */
const API_VERSION = '1.0.0';

const ref = (to: string) => ({ $ref: to });

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
                groupId: {
                  type: 'string',
                  description: `Set by KAFKA_GROUP_ID (default \`${DEFAULTS.KAFKA_GROUP_ID}\`).`,
                },
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
they come from, so the results of one key share a partition of their topic. Events of one partition are batched and sent
concurrently: results may come in another order than their events; correlate them by \`sourceeventid\`
and deduplicate them by \`id\`.`;

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
