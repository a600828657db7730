import type { EnvironmentVariables, LogLevel, Mode, TokenForm } from './environment.dto';

export interface KafkaConfig {
  brokers: string[];
  clientId: string;
  groupId: string;
  /** Create missing topics at startup (local mode); in production topics are provisioned. */
  createTopics: boolean;
  topicPartitions: number;
  /** -1: the broker's default. */
  replicationFactor: number;
}

export interface TopicsConfig {
  userSignedUp: string;
  campaignSent: string;
  dispatchFailed: string;
  deadLetter: string;
}

export interface VendorConfig {
  relayBaseUrl: string;
  baseUrl: string;
  contactsPath: string;
  relayAccessToken: string;
  relayTokenForm: TokenForm;
  apiKey: string;
  allowInsecureHosts: string[];
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  retryMaxAttempts: number;
  retryBaseMs: number;
  retryCapMs: number;
  retryAfterMaxMs: number;
  maxRecipientsPerRequest: number;
  maxBodyBytes: number;
  poolConnections: number;
  chunkConcurrency: number;
}

export interface SenderConfig {
  from: { name: string; email: string };
  replyTo?: { name: string; email: string };
  disableTrackingLinks: boolean;
}

/** The validated, typed configuration; built only by `loadConfig`, injected as `APP_CONFIG`. */
export class AppConfig {
  private constructor(
    readonly mode: Mode,
    readonly logLevel: LogLevel,
    readonly httpPort: number,
    readonly kafka: KafkaConfig,
    readonly topics: TopicsConfig,
    readonly vendor: VendorConfig,
    readonly sender: SenderConfig,
    readonly consumer: { concurrency: number },
    readonly shutdownTimeoutMs: number,
  ) {}

  static from(env: EnvironmentVariables): AppConfig {
    return new AppConfig(
      env.MAILBRIDGE_MODE,
      env.LOG_LEVEL,
      env.HTTP_PORT,
      {
        brokers: env.KAFKA_BROKERS.split(','),
        clientId: env.KAFKA_CLIENT_ID,
        groupId: env.KAFKA_GROUP_ID,
        createTopics: env.KAFKA_CREATE_TOPICS,
        topicPartitions: env.KAFKA_TOPIC_PARTITIONS,
        replicationFactor: env.KAFKA_REPLICATION_FACTOR,
      },
      {
        userSignedUp: env.TOPIC_USER_SIGNED_UP,
        campaignSent: env.TOPIC_CAMPAIGN_SENT,
        dispatchFailed: env.TOPIC_DISPATCH_FAILED,
        deadLetter: env.TOPIC_DEAD_LETTER,
      },
      {
        relayBaseUrl: env.VENDOR_RELAY_BASE_URL.replace(/\/+$/, ''),
        baseUrl: env.VENDOR_BASE_URL.replace(/\/+$/, ''),
        contactsPath: env.VENDOR_CONTACTS_PATH,
        relayAccessToken: env.VENDOR_RELAY_ACCESS_TOKEN,
        relayTokenForm: env.VENDOR_RELAY_TOKEN_FORM,
        apiKey: env.VENDOR_API_KEY,
        allowInsecureHosts: env.VENDOR_ALLOW_INSECURE_HOSTS,
        connectTimeoutMs: env.VENDOR_CONNECT_TIMEOUT_MS,
        headersTimeoutMs: env.VENDOR_HEADERS_TIMEOUT_MS,
        bodyTimeoutMs: env.VENDOR_BODY_TIMEOUT_MS,
        retryMaxAttempts: env.VENDOR_RETRY_MAX_ATTEMPTS,
        retryBaseMs: env.VENDOR_RETRY_BASE_MS,
        retryCapMs: env.VENDOR_RETRY_CAP_MS,
        retryAfterMaxMs: env.VENDOR_RETRY_AFTER_MAX_MS,
        maxRecipientsPerRequest: env.VENDOR_MAX_RECIPIENTS_PER_REQUEST,
        maxBodyBytes: env.VENDOR_MAX_BODY_BYTES,
        poolConnections: env.VENDOR_POOL_CONNECTIONS,
        chunkConcurrency: env.VENDOR_CHUNK_CONCURRENCY,
      },
      {
        from: { name: env.SENDER_FROM_NAME, email: env.SENDER_FROM_EMAIL },
        replyTo: env.SENDER_REPLY_TO_EMAIL
          ? {
              name: env.SENDER_REPLY_TO_NAME ?? env.SENDER_FROM_NAME,
              email: env.SENDER_REPLY_TO_EMAIL,
            }
          : undefined,
        disableTrackingLinks: env.DISABLE_TRACKING_LINKS,
      },
      { concurrency: env.CONSUMER_CONCURRENCY },
      env.SHUTDOWN_TIMEOUT_MS,
    );
  }

  /** Keys are replaced so that the object can be logged or inspected safely. */
  toJSON(): object {
    return {
      ...this,
      vendor: { ...this.vendor, relayAccessToken: '[redacted]', apiKey: '[redacted]' },
    };
  }
}
