import { parseArgs } from 'node:util';
import {
  CloudEvent,
  Kafka as CloudEventsKafka,
  type KafkaMessage as CloudEventsMessage,
} from 'cloudevents';
import { Kafka, logLevel, type KafkaMessage } from 'kafkajs';
import { readDeadLetterHeaders } from '../contracts/dead-letter-headers';

const DEAD_LETTER_TOPIC = 'mailbridge.dead-letter.v1';

/**
 * `npm run results -- [--brokers host:port] [--topics a,b] [--dead-letter-topic t]`: prints every
 * result event (and dead letter) from the beginning of the topics, then follows new ones until
 * Ctrl-C. Results are CloudEvents in either content mode; each is decoded by the CloudEvents
 * SDK and printed as one structured JSON document. Dead letters, and records that are not
 * CloudEvents, are printed as their value, as stored.
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
      'dead-letter-topic': { type: 'string', default: DEAD_LETTER_TOPIC },
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
      const shown = topic === values['dead-letter-topic'] ? undefined : asCloudEvent(message);
      console.log(
        `${topic} key=${message.key?.toString() ?? ''}${deadLetterLine(message)}\n  ${shown ?? message.value?.toString() ?? ''}`,
      );
      return Promise.resolve();
    },
  });
  // Ctrl-C under npm reaches this process twice (from the terminal and from npm): the second
  // must not kill it before the consumer has left its group.
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void consumer.disconnect().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
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

/** The record as a CloudEvent in structured JSON, or undefined when it is not one. */
function asCloudEvent(message: KafkaMessage): string | undefined {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(message.headers ?? {})) {
    if (value !== undefined) headers[name] = String(Array.isArray(value) ? value[0] : value);
  }
  const record = { key: message.key?.toString(), value: message.value?.toString(), headers };
  const candidate = record as unknown as CloudEventsMessage<unknown>;
  if (!CloudEventsKafka.isEvent(candidate)) return undefined;
  try {
    const event = CloudEventsKafka.toEvent(candidate) as CloudEvent<unknown>;
    const { partitionkey, ...attributes } = event.toJSON();
    void partitionkey;
    return JSON.stringify(attributes);
  } catch {
    return undefined;
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
