import { randomUUID } from 'node:crypto';
import { Kafka, logLevel, Partitioners } from 'kafkajs';
import { childConfig, type ConsumedReport, type ConsumerChildConfig } from './child-messages';

/**
 * ceiling-consume-produce: raw kafkajs, one small result per consumed event, written with the
 * durability mailbridge uses (acks=all) before the batch's offsets are committed. The best a
 * Kafka-in, Kafka-out Node process does here with no vendor in between.
 */
async function main(): Promise<void> {
  const config = childConfig<ConsumerChildConfig>();
  const kafka = new Kafka({
    clientId: 'bench-ceiling',
    brokers: config.brokers,
    logLevel: logLevel.ERROR,
  });
  const consumer = kafka.consumer({ groupId: config.groupId });
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await Promise.all([consumer.connect(), producer.connect()]);
  await consumer.subscribe({ topics: config.topics, fromBeginning: true });
  const resultTopic = config.resultTopic!;
  let count = 0;
  let firstAt = 0;
  let reported = false;
  await consumer.run({
    partitionsConsumedConcurrently: config.partitions,
    eachBatch: async ({ batch }) => {
      firstAt ||= Date.now();
      const messages = batch.messages.map((message) => {
        const event = JSON.parse(message.value?.toString() ?? '{}') as { id?: string };
        // A binary-mode CloudEvent, as mailbridge writes its results by default.
        return {
          key: message.key,
          value: JSON.stringify({ ok: true }),
          headers: {
            ce_specversion: '1.0',
            ce_id: randomUUID(),
            ce_source: 'bench-ceiling',
            ce_type: 'bench.result.v1',
            ce_time: new Date().toISOString(),
            ce_sourceeventid: event.id ?? '',
            'content-type': 'application/json',
          },
        };
      });
      await producer.send({ topic: resultTopic, acks: -1, messages });
      count += messages.length;
      if (!reported && config.expected !== undefined && count >= config.expected) {
        reported = true;
        const report: ConsumedReport = { type: 'done', count, firstAt, lastAt: Date.now() };
        process.send?.(report);
      }
    },
  });
  const stop = () =>
    void Promise.allSettled([consumer.disconnect(), producer.disconnect()]).finally(() =>
      process.exit(0),
    );
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
