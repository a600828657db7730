/**
 * Publishes sample events of one inbound type to mailbridge, as another service would, with
 * @mailbridge/contracts and kafkajs:
 *
 *   npm run example:publish -- <type> [--mode binary|structured] [--count N]
 *                              [--brokers host:port,…] [--topic T]
 *
 * <type>: user.signed_up.v1, order.placed.v1, email.campaign.requested.v1 or
 * email.contact_list.requested.v1. Each event is checked against its JSON Schema, then written as
 * a CloudEvent (binary mode by default) to the type's default topic.
 */
import { parseArgs } from 'node:util';
import { INBOUND_TOPICS, INBOUND_TYPES, encodeEvent, isInboundType } from '@mailbridge/contracts';
import { Kafka, Partitioners, logLevel } from 'kafkajs';
import { sampleEvent } from './sample-events.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    mode: { type: 'string', default: 'binary' },
    count: { type: 'string', default: '1' },
    brokers: { type: 'string', default: '127.0.0.1:9092' },
    topic: { type: 'string' },
  },
});
const [type] = positionals;
const mode = values.mode;
if (!type || !isInboundType(type) || (mode !== 'binary' && mode !== 'structured')) {
  console.error(
    `usage: npm run example:publish -- <${INBOUND_TYPES.join('|')}> [--mode binary|structured] [--count N] [--brokers host:port] [--topic T]`,
  );
  process.exit(2);
}
const topic = values.topic ?? INBOUND_TOPICS[type];

const kafka = new Kafka({
  clientId: 'example-publisher',
  brokers: values.brokers.split(','),
  logLevel: logLevel.WARN,
});
// Java's murmur2 partitioning (kafkajs 2's default, named here so kafkajs has nothing to warn of):
// a key lands where mailbridge's own producer and Java clients put it, so its events stay in order.
const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
await producer.connect();
try {
  const samples = Array.from({ length: Number(values.count) }, (_, i) => sampleEvent(type, i + 1));
  await producer.send({
    topic,
    // acks -1: the broker has every in-sync replica's copy before send() returns.
    acks: -1,
    messages: samples.map(({ event, key }) => encodeEvent(event, { mode, key, validate: true })),
  });
  for (const { event, key } of samples) {
    console.log(`published ${event.type} ${event.id} (${mode}, key ${key}) to ${topic}`);
  }
} finally {
  await producer.disconnect();
}
