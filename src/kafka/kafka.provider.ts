import { Logger, type Provider } from '@nestjs/common';
import { Kafka, logLevel, type LogEntry, type SASLOptions } from 'kafkajs';
import { AppConfig } from '../config/app-config';

const kafkaLogger = new Logger('kafkajs');

/** kafkajs logs through Nest's logger; its DEBUG chatter is dropped. */
function logCreator() {
  return ({ level, log }: LogEntry) => {
    const { message, ...extra } = log;
    const line = `${message} ${JSON.stringify(extra)}`;
    if (level === logLevel.ERROR) kafkaLogger.error(line);
    else if (level === logLevel.WARN) kafkaLogger.warn(line);
    else if (level === logLevel.INFO) kafkaLogger.debug(line);
  };
}

export function createKafka(config: AppConfig): Kafka {
  return new Kafka({
    clientId: config.kafka.clientId,
    brokers: config.kafka.brokers,
    ssl: config.kafka.ssl,
    // kafkajs types SASL options per mechanism; ours carries the same three fields for each.
    sasl: config.kafka.sasl as SASLOptions | undefined,
    logLevel: logLevel.INFO,
    logCreator,
    retry: { retries: 8, initialRetryTime: 300, maxRetryTime: 10_000 },
  });
}

/** Creates the topics mailbridge reads and writes when they are missing; existing ones are left alone. */
export async function ensureTopics(kafka: Kafka, config: AppConfig): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = config.allTopics.filter((t) => !existing.has(t));
    if (missing.length === 0) return;
    await admin.createTopics({
      waitForLeaders: true,
      topics: missing.map((topic) => ({
        topic,
        numPartitions: config.kafka.topicPartitions,
        replicationFactor: config.kafka.replicationFactor,
      })),
    });
    kafkaLogger.log(`created topics ${missing.join(', ')}`);
  } finally {
    await admin.disconnect();
  }
}

export const KafkaProvider: Provider = {
  provide: Kafka,
  inject: [AppConfig],
  useFactory: createKafka,
};
