import type { Kafka } from 'kafkajs';
import type { KafkaToolConfig } from '../../config/config.loader';
import { waitForLeaders } from '../../kafka/kafka.provider';

/** The redrive log's name when `--log-topic` is not given: beside the dead-letter topic. */
export function defaultLogTopic(deadLetterTopic: string): string {
  return `${deadLetterTopic}.redrive-log`;
}

/**
 * The redrive log's key of one dead letter: where it sits on the dead-letter topic. Topic names
 * cannot hold `/`, so the key is unambiguous.
 */
export function logKey(topic: string, partition: number, offset: string): string {
  return `${topic}/${partition}/${offset}`;
}

/** What the log records of one redriven dead letter (the value; the key is {@link logKey}). */
export interface RedriveLogEntry {
  deadLetter: { topic: string; partition: number; offset: string };
  original: { topic: string; partition: number; offset: string };
  errorCode?: string;
  redrivenAt: string;
  /** One id per run of the command. */
  run: string;
}

/** Whether the log topic exists (a dry run creates nothing). */
export async function logTopicExists(kafka: Kafka, topic: string): Promise<boolean> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    return (await admin.listTopics()).includes(topic);
  } finally {
    await admin.disconnect();
  }
}

/**
 * Creates the log topic when it is missing: one partition, compacted (one entry per dead letter
 * is all it needs to keep, for as long as the dead letters exist).
 */
export async function ensureLogTopic(kafka: Kafka, topic: string, config: KafkaToolConfig) {
  const admin = kafka.admin();
  await admin.connect();
  try {
    if ((await admin.listTopics()).includes(topic)) return;
    try {
      await admin.createTopics({
        waitForLeaders: false,
        topics: [
          {
            topic,
            numPartitions: 1,
            replicationFactor: config.kafka.replicationFactor,
            configEntries: [{ name: 'cleanup.policy', value: 'compact' }],
          },
        ],
      });
    } catch (error) {
      throw new Error(
        `the redrive log topic ${topic} does not exist and could not be created ` +
          `(${(error as Error).message}): create it with cleanup.policy=compact, or pass --log-topic`,
        { cause: error },
      );
    }
    await waitForLeaders(admin, [topic]);
  } finally {
    await admin.disconnect();
  }
}
