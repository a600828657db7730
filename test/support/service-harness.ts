import type { INestApplication } from '@nestjs/common';
import type { Kafka } from 'kafkajs';
import type { DestinationStream } from 'pino';
import { serviceLoggerFor, startApp } from '../../src/app';
import { loadConfig } from '../../src/config/config.loader';
import type { FaultConfig } from '../../src/sandbox/sandbox-options';
import { SandboxServer } from '../../src/sandbox/sandbox.server';
import {
  TopicCollector,
  createTopics,
  produce,
  testBrokers,
  testKafka,
  uniqueName,
} from './kafka-helpers';

export const RELAY_KEY = 'relay-key-for-tests';
export const API_KEY = 'contacts-key-for-tests';

/** Topic names of one test: unique, so tests never see each other's records. */
export function uniqueTopics() {
  return {
    TOPIC_USER_SIGNED_UP: uniqueName('user.signed_up.v1'),
    TOPIC_ORDER_PLACED: uniqueName('order.placed.v1'),
    TOPIC_CAMPAIGN_REQUESTED: uniqueName('email.campaign.requested.v1'),
    TOPIC_CONTACT_LIST_REQUESTED: uniqueName('email.contact_list.requested.v1'),
    TOPIC_SUPPRESSION_REQUESTED: uniqueName('email.suppression.requested.v1'),
    TOPIC_CAMPAIGN_SENT: uniqueName('email.campaign.sent.v1'),
    TOPIC_CONTACT_LIST_CREATED: uniqueName('email.contact_list.created.v1'),
    TOPIC_DISPATCH_FAILED: uniqueName('email.dispatch.failed.v1'),
    TOPIC_DEAD_LETTER: uniqueName('mailbridge.dead-letter.v1'),
    TOPIC_UNSUBSCRIBED: uniqueName('email.unsubscribed.v1'),
  };
}

export type Topics = ReturnType<typeof uniqueTopics>;

/** The environment a test service runs with: real broker, real Redis, the sandbox. */
export function serviceEnv(
  sandboxUrl: string,
  topics: Topics,
  groupId: string,
  overrides: Record<string, string> = {},
): Record<string, string> {
  return {
    MAILBRIDGE_MODE: 'production',
    KAFKA_BROKERS: testBrokers().join(','),
    KAFKA_GROUP_ID: groupId,
    VENDOR_RELAY_BASE_URL: `${sandboxUrl}/relay/v1`,
    VENDOR_BASE_URL: `${sandboxUrl}/v1`,
    VENDOR_RELAY_ACCESS_TOKEN: RELAY_KEY,
    VENDOR_API_KEY: API_KEY,
    SUPPRESSION_HASH_KEY: 'suppression-hash-key-for-tests-only-32',
    VENDOR_RETRY_BASE_MS: '10',
    VENDOR_RETRY_CAP_MS: '200',
    SENDER_FROM_EMAIL: 'hello@shop.example',
    SENDER_FROM_NAME: 'Example Shop',
    IDEMPOTENCY_STORE: 'redis',
    REDIS_URL: 'redis://127.0.0.1:6379',
    HTTP_PORT: '0',
    LOG_LEVEL: 'warn',
    // Tests publish before they start the service; production's `latest` would skip those events.
    CONSUMER_START_FROM: 'earliest',
    // The sandbox keeps no rate limit unless told to: tests of the request budget set one.
    VENDOR_CONTACTS_RATE: 'off',
    ...topics,
    ...overrides,
  };
}

/** A sandbox, unique topics and a collector of every output topic; the service is up to the test. */
export class PipelineFixture {
  readonly topics = uniqueTopics();
  readonly groupId = uniqueName('mailbridge');
  /** One namespace in Redis per fixture: its instances share it, other tests never see it. */
  readonly keyPrefix = `${uniqueName('mailbridge-test')}:`;
  sandbox!: SandboxServer;
  collector!: TopicCollector;
  private apps: INestApplication[] = [];

  /** `kafka`: the client that creates topics, publishes and collects (the shared broker's). */
  constructor(readonly kafka: Kafka = testKafka()) {}

  async start(faults?: FaultConfig): Promise<this> {
    this.sandbox = new SandboxServer({ relayAccessToken: RELAY_KEY, apiKey: API_KEY, faults });
    await this.sandbox.listen(0);
    await createTopics(this.kafka, Object.values(this.topics), 3, [this.groupId]);
    const t = this.topics;
    this.collector = await new TopicCollector(this.kafka).start([
      t.TOPIC_CAMPAIGN_SENT,
      t.TOPIC_CONTACT_LIST_CREATED,
      t.TOPIC_DISPATCH_FAILED,
      t.TOPIC_DEAD_LETTER,
      t.TOPIC_UNSUBSCRIBED,
    ]);
    return this;
  }

  /** Publishes events to one of this fixture's topics, keyed as a producer service would. */
  async publish<E>(topic: keyof Topics, events: E[], keyOf: (event: E) => string): Promise<void> {
    await produce(
      this.kafka,
      this.topics[topic],
      events.map((e) => ({ key: keyOf(e), value: JSON.stringify(e) })),
    );
  }

  env(overrides: Record<string, string> = {}): Record<string, string> {
    return serviceEnv(this.sandbox.url, this.topics, this.groupId, {
      IDEMPOTENCY_KEY_PREFIX: this.keyPrefix,
      ...overrides,
    });
  }

  /**
   * Starts the service in this process. `logTo`: where its log lines go instead of stdout, for a
   * test that reads them.
   */
  async startService(
    overrides: Record<string, string> = {},
    { logTo }: { logTo?: DestinationStream } = {},
  ): Promise<INestApplication> {
    const config = loadConfig(this.env(overrides));
    const app = await startApp(config, serviceLoggerFor(config, logTo));
    this.apps.push(app);
    return app;
  }

  /** Closes one service started by {@link startService}, as a SIGTERM would. */
  async stopService(app: INestApplication): Promise<void> {
    this.apps = this.apps.filter((a) => a !== app);
    await app.close();
  }

  async stop(): Promise<void> {
    for (const app of this.apps) await app.close();
    await this.collector?.stop();
    await this.sandbox?.close();
  }
}
