import { parseArgs } from 'node:util';
import { Kafka, logLevel, type KafkaMessage } from 'kafkajs';
import { readDeadLetterHeaders } from '../contracts/dead-letter-headers';

/**
 * `npm run results -- [--brokers host:port] [--topics a,b]`: prints every result event (and dead
 * letter) from the beginning of the topics, then follows new ones until Ctrl-C.
 */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      brokers: { type: 'string', default: '127.0.0.1:9092' },
      topics: {
        type: 'string',
        default:
          'email.campaign.sent.v1,email.contact_list.created.v1,email.dispatch.failed.v1,mailbridge.dead-letter.v1',
      },
    },
  });
  const kafka = new Kafka({
    clientId: 'mailbridge-results',
    brokers: values.brokers.split(','),
    logLevel: logLevel.NOTHING,
  });
  const consumer = kafka.consumer({ groupId: `mailbridge-results-${process.pid}-${Date.now()}` });
  await consumer.connect();
  await consumer.subscribe({ topics: values.topics.split(','), fromBeginning: true });
  await consumer.run({
    eachMessage: ({ topic, message }) => {
      console.log(
        `${topic} key=${message.key?.toString() ?? ''}${deadLetterLine(message)}\n  ${message.value?.toString() ?? ''}`,
      );
      return Promise.resolve();
    },
  });
  const stop = () => void consumer.disconnect().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

/** A dead letter's headers, decoded (its numbers are binary): where it came from, and why. */
function deadLetterLine(message: KafkaMessage): string {
  let info;
  try {
    info = readDeadLetterHeaders(message.headers);
  } catch (error) {
    return `\n  (unreadable dead-letter headers: ${(error as Error).message})`;
  }
  if (!info) return '';
  return (
    `\n  dead letter of ${info.originalTopic}/${info.originalPartition}@${info.originalOffset}: ` +
    `${info.errorCode ?? info.exceptionFqcn ?? '?'} ${info.exceptionMessage ?? ''}`
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
