import { Logger, type Provider } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  Kafka,
  logLevel,
  type Admin,
  type KafkaConfig,
  type LogEntry,
  type SASLOptions,
} from 'kafkajs';
import { AppConfig, type TopicsConfig } from '../config/app-config';
import type { KafkaSasl } from '../config/kafka-security';
import { MissingTopicsError, type ConfiguredTopic } from './missing-topics.error';
import { CLIENT_RETRY } from './kafka-tuning';
import { ClientCredentialsProvider, tokenFileProvider } from './oauth-bearer';

const kafkaLogger = new Logger('kafkajs');

/**
 * kafkajs logs through the service's logger, its fields kept as fields; its DEBUG chatter is
 * dropped. kafkajs writes every error response of the broker at ERROR, the retriable ones too
 * (a coordinator still loading, a topic not yet hosted: three such lines on every healthy start).
 * The operation that gets such a response retries it, or fails and is logged by the code that
 * called it, so those lines are debug; a send it will retry (a leader moving, a topic just
 * created) is a warning. An ERROR line from kafkajs means a connection or a consumer in trouble.
 */
export function logCreator() {
  return ({ level, log }: LogEntry) => {
    // The line gets its own time and logger name; kafkajs' copies of both are left out.
    const { message, timestamp, logger, ...fields } = log;
    void timestamp;
    void logger;
    const line = { msg: message, ...fields };
    if (level === logLevel.ERROR && message.startsWith('Response ')) kafkaLogger.debug(line);
    // A retriable failure with its retry scheduled ('Failed to send messages: …, retryTime').
    else if (level === logLevel.ERROR && 'retryTime' in fields) kafkaLogger.warn(line);
    else if (level === logLevel.ERROR) kafkaLogger.error(line);
    else if (level === logLevel.WARN) kafkaLogger.warn(line);
    else if (level === logLevel.INFO) kafkaLogger.debug(line);
  };
}

/** `overrides` replace the defaults below, for a client with other needs (the broker probe). */
export function createKafka(
  config: Pick<AppConfig, 'kafka'>,
  overrides: Partial<KafkaConfig> = {},
): Kafka {
  return new Kafka({
    clientId: config.kafka.clientId,
    brokers: config.kafka.brokers,
    ssl: config.kafka.ssl,
    sasl: saslOptions(config.kafka.sasl),
    logLevel: logLevel.INFO,
    logCreator,
    retry: CLIENT_RETRY,
    ...overrides,
  });
}

/** One token source per configuration, shared by its clients (the service's and the probe's). */
const tokenProviders = new WeakMap<object, () => Promise<{ value: string }>>();

/** kafkajs' SASL options for our settings: OAUTHBEARER gets a provider of tokens. */
export function saslOptions(sasl: KafkaSasl): SASLOptions | undefined {
  if (!sasl) return undefined;
  if (sasl.mechanism !== 'oauthbearer') return sasl;
  let provider = tokenProviders.get(sasl);
  if (!provider) {
    provider =
      'tokenFile' in sasl
        ? tokenFileProvider(sasl.tokenFile)
        : new ClientCredentialsProvider(sasl.tokenEndpoint).provide;
    tokenProviders.set(sasl, provider);
  }
  return { mechanism: 'oauthbearer', oauthBearerProvider: provider };
}

/** The variable that configures each topic; the type makes a new topic add its line here. */
const TOPIC_VARIABLES: Record<keyof TopicsConfig, string> = {
  userSignedUp: 'TOPIC_USER_SIGNED_UP',
  orderPlaced: 'TOPIC_ORDER_PLACED',
  campaignRequested: 'TOPIC_CAMPAIGN_REQUESTED',
  contactListRequested: 'TOPIC_CONTACT_LIST_REQUESTED',
  suppressionRequested: 'TOPIC_SUPPRESSION_REQUESTED',
  campaignSent: 'TOPIC_CAMPAIGN_SENT',
  contactListCreated: 'TOPIC_CONTACT_LIST_CREATED',
  dispatchFailed: 'TOPIC_DISPATCH_FAILED',
  deadLetter: 'TOPIC_DEAD_LETTER',
  unsubscribed: 'TOPIC_UNSUBSCRIBED',
};

/** Every topic mailbridge reads or writes, with the variable that names it. */
export function configuredTopics(topics: TopicsConfig): ConfiguredTopic[] {
  return (Object.keys(TOPIC_VARIABLES) as Array<keyof TopicsConfig>).map((key) => ({
    variable: TOPIC_VARIABLES[key],
    topic: topics[key],
  }));
}

/**
 * Fails with a {@link MissingTopicsError} naming every topic that does not exist. Run instead of
 * {@link ensureTopics} when topics are provisioned: otherwise the consumer's first metadata
 * request would fail without naming the topic, or, on a broker with `auto.create.topics.enable`
 * (Kafka's default), create it with the broker's defaults (one partition). kafkajs' admin never
 * asks the broker to create a topic, and `listTopics` names none.
 */
export async function checkTopicsExist(kafka: Kafka, config: AppConfig): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = configuredTopics(config.topics).filter(({ topic }) => !existing.has(topic));
    if (missing.length > 0) throw new MissingTopicsError(missing);
  } finally {
    await admin.disconnect();
  }
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
      waitForLeaders: false, // kafkajs' own wait gives up on a cold KRaft broker; see below
      topics: missing.map((topic) => ({
        topic,
        numPartitions: config.kafka.topicPartitions,
        replicationFactor: config.kafka.replicationFactor,
      })),
    });
    await waitForLeaders(admin, missing);
    kafkaLogger.log(`created topics ${missing.join(', ')}`);
  } finally {
    await admin.disconnect();
  }
}

/**
 * Waits until every partition of `topics` has a leader. kafkajs' own `waitForLeaders` gives up at
 * once when a KRaft broker answers "does not host this topic-partition" for a topic it created a
 * moment ago, so this asks again until the metadata has caught up, or the deadline passes.
 */
export async function waitForLeaders(admin: Admin, topics: string[], timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let problem: string;
    try {
      const { topics: found } = await admin.fetchTopicMetadata({ topics });
      const leaderless = found.filter((t) => t.partitions.some((p) => p.leader < 0));
      if (found.length === topics.length && leaderless.length === 0) return;
      problem = `no leader yet for ${leaderless.map((t) => t.name).join(', ') || 'some topics'}`;
    } catch (error) {
      problem = (error as Error).message;
    }
    if (Date.now() > deadline) {
      throw new Error(`topics not ready after ${timeoutMs} ms: ${problem}`);
    }
    await sleep(100);
  }
}

export const KafkaProvider: Provider = {
  provide: Kafka,
  inject: [AppConfig],
  useFactory: createKafka,
};
