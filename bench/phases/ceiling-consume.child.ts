import { Kafka, logLevel } from 'kafkajs';
import { childConfig, type ConsumedReport, type ConsumerChildConfig } from './child-messages';

/**
 * ceiling-consume: a raw kafkajs `eachBatch` consumer that does nothing with the records. How
 * fast this machine can move records from the broker into a Node process at all.
 */
async function main(): Promise<void> {
  const config = childConfig<ConsumerChildConfig>();
  const kafka = new Kafka({
    clientId: 'bench-ceiling',
    brokers: config.brokers,
    logLevel: logLevel.ERROR,
  });
  const consumer = kafka.consumer({ groupId: config.groupId });
  await consumer.connect();
  await consumer.subscribe({ topics: config.topics, fromBeginning: true });
  let count = 0;
  let firstAt = 0;
  let reported = false;
  await consumer.run({
    partitionsConsumedConcurrently: config.partitions,
    eachBatch: ({ batch }) => {
      firstAt ||= Date.now();
      count += batch.messages.length;
      if (!reported && config.expected !== undefined && count >= config.expected) {
        reported = true;
        const report: ConsumedReport = { type: 'done', count, firstAt, lastAt: Date.now() };
        process.send?.(report);
      }
      return Promise.resolve();
    },
  });
  const stop = () => void consumer.disconnect().finally(() => process.exit(0));
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
