/**
 * Subscribes to mailbridge's results, as a publishing service would, with @mailbridge/contracts
 * and kafkajs, and prints each one decoded, in either CloudEvents mode, until Ctrl-C:
 *
 *   npm run example:subscribe -- [--brokers host:port,…] [--topics a,b,c] [--group G] [--json]
 *
 * It reads the three result topics from their beginning, in a consumer group of its own unless
 * --group names one. --json prints each decoded result as one line of JSON.
 */
import { parseArgs } from 'node:util';
import {
  EMAIL_CAMPAIGN_SENT_V1,
  EMAIL_CONTACT_LIST_CREATED_V1,
  EMAIL_DISPATCH_FAILED_V1,
  EMAIL_UNSUBSCRIBED_V1,
  RESULT_TOPICS,
  ResultDecodeError,
  decodeResult,
  type MailbridgeResult,
} from '@mailbridge/contracts';
import { Kafka, logLevel } from 'kafkajs';

const { values } = parseArgs({
  options: {
    brokers: { type: 'string', default: '127.0.0.1:9092' },
    topics: { type: 'string', default: Object.values(RESULT_TOPICS).join(',') },
    group: { type: 'string', default: `example-subscriber-${process.pid}-${Date.now()}` },
    json: { type: 'boolean', default: false },
  },
});

/** What a subscriber would act on: the narrowed result's own fields. */
function describe(result: MailbridgeResult): string {
  if (result.type === EMAIL_UNSUBSCRIBED_V1) {
    const { address, scope } = result.data;
    return `unsubscribed ${result.data.unsubscribeId}: ${address} from ${scope} mail`;
  }
  const about = `${result.sourceeventid} [${result.data.template}]`;
  switch (result.type) {
    case EMAIL_CAMPAIGN_SENT_V1: {
      const copy = result.data.locale ? `, ${result.data.locale} copy` : '';
      return `sent ${about}: request ${result.data.requestId}, ${result.data.recipientCount} recipient(s)${copy}`;
    }
    case EMAIL_CONTACT_LIST_CREATED_V1:
      return `list created ${about}: ${result.data.listId} "${result.data.name}", ${result.data.memberCount} member(s)`;
    case EMAIL_DISPATCH_FAILED_V1:
      return `failed ${about}: ${result.data.errorCode} (retriable: ${result.data.retriable}) ${result.data.message}`;
  }
}

const kafka = new Kafka({
  clientId: 'example-subscriber',
  brokers: values.brokers.split(','),
  logLevel: logLevel.WARN,
});
const consumer = kafka.consumer({ groupId: values.group });
await consumer.connect();
await consumer.subscribe({ topics: values.topics.split(','), fromBeginning: true });
await consumer.run({
  eachMessage: ({ topic, partition, message }) => {
    try {
      const result = decodeResult(message);
      console.log(
        values.json
          ? JSON.stringify(result)
          : `${result.type} (${result.record.mode}) ${describe(result)}`,
      );
    } catch (error) {
      // Not a result (another producer's record on the topic): say so and go on.
      if (!(error instanceof ResultDecodeError)) throw error;
      console.error(`skipped ${topic}/${partition}@${message.offset}: ${error.message}`);
    }
    return Promise.resolve();
  },
});
console.error(`subscribed to ${values.topics} as group ${values.group}; Ctrl-C stops`);

// Ctrl-C arrives twice under npm (from the terminal, and passed on by npm): a second signal
// must not end the process before the consumer has left its group.
let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  void consumer.disconnect().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
