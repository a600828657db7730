import type {
  AmbiguousSendPolicy,
  EnvironmentVariables,
  IdempotencyStoreKind,
  LogLevel,
  Mode,
  SaslMechanism,
  StartPosition,
  TokenForm,
} from './environment.dto';

export interface KafkaConfig {
  brokers: string[];
  ssl: boolean;
  sasl?: { mechanism: Exclude<SaslMechanism, 'none'>; username: string; password: string };
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
  orderPlaced: string;
  campaignRequested: string;
  contactListRequested: string;
  campaignSent: string;
  contactListCreated: string;
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
  /** Try again a request whose fate is unknown (AMBIGUOUS_SEND_POLICY=resend). */
  retryAmbiguous: boolean;
  maxRecipientsPerRequest: number;
  maxBodyBytes: number;
  poolConnections: number;
  chunkConcurrency: number;
}

export interface ConsumerConfig {
  /** Records admitted at once per instance; beyond it, fetching waits. */
  maxInFlight: number;
  commitIntervalMs: number;
  maxEventBytes: number;
  /** Applied only to partitions for which the group has no committed offset. */
  startFrom: StartPosition;
  /** How long the pipeline may make no progress while it has work before liveness fails. */
  livenessStallMs: number;
}

export interface BatchingConfig {
  lingerMs: number;
  maxRecipients: number;
  maxBytes: number;
  contactListWindowMs: number;
  contactListMaxMembers: number;
  /** A window starting further ahead of our clock than this is replaced by the current one. */
  contactListClockSkewMs: number;
  contactListNamePattern: string;
  pauseOnVendorFailureMs: number;
  pauseOnAuthFailureMs: number;
}

export interface IdempotencyConfig {
  store: IdempotencyStoreKind;
  redisUrl: string;
  /** Namespace of the keys in Redis, for deployments (or benchmark runs) sharing one. */
  keyPrefix: string;
  ttlSeconds: number;
  /** How long a started send blocks others from the same event before it counts as abandoned. */
  claimTtlMs: number;
  /** How long an instance counts as alive after its last heartbeat; then its claims are free. */
  instanceTtlMs: number;
  /** A send that may already have reached the vendor: send again, or fail it as ambiguous. */
  ambiguousSendPolicy: AmbiguousSendPolicy;
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
    readonly consumer: ConsumerConfig,
    readonly batching: BatchingConfig,
    readonly idempotency: IdempotencyConfig,
    readonly shutdownTimeoutMs: number,
  ) {}

  static from(env: EnvironmentVariables): AppConfig {
    return new AppConfig(
      env.MAILBRIDGE_MODE,
      env.LOG_LEVEL,
      env.HTTP_PORT,
      {
        brokers: env.KAFKA_BROKERS.split(','),
        ssl: env.KAFKA_SSL,
        sasl:
          env.KAFKA_SASL_MECHANISM === 'none'
            ? undefined
            : {
                mechanism: env.KAFKA_SASL_MECHANISM,
                username: env.KAFKA_SASL_USERNAME ?? '',
                password: env.KAFKA_SASL_PASSWORD ?? '',
              },
        clientId: env.KAFKA_CLIENT_ID,
        groupId: env.KAFKA_GROUP_ID,
        createTopics: env.KAFKA_CREATE_TOPICS,
        topicPartitions: env.KAFKA_TOPIC_PARTITIONS,
        replicationFactor: env.KAFKA_REPLICATION_FACTOR,
      },
      {
        userSignedUp: env.TOPIC_USER_SIGNED_UP,
        orderPlaced: env.TOPIC_ORDER_PLACED,
        campaignRequested: env.TOPIC_CAMPAIGN_REQUESTED,
        contactListRequested: env.TOPIC_CONTACT_LIST_REQUESTED,
        campaignSent: env.TOPIC_CAMPAIGN_SENT,
        contactListCreated: env.TOPIC_CONTACT_LIST_CREATED,
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
        retryAmbiguous: env.AMBIGUOUS_SEND_POLICY === 'resend',
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
      {
        maxInFlight: env.CONSUMER_MAX_IN_FLIGHT,
        commitIntervalMs: env.CONSUMER_COMMIT_INTERVAL_MS,
        maxEventBytes: env.MAX_EVENT_BYTES,
        startFrom: env.CONSUMER_START_FROM,
        livenessStallMs: env.LIVENESS_STALL_MS,
      },
      {
        lingerMs: env.BATCH_LINGER_MS,
        maxRecipients: env.BATCH_MAX_RECIPIENTS,
        maxBytes: env.BATCH_MAX_BYTES,
        contactListWindowMs: env.CONTACT_LIST_WINDOW_MS,
        contactListMaxMembers: env.CONTACT_LIST_MAX_MEMBERS,
        contactListClockSkewMs: env.CONTACT_LIST_CLOCK_SKEW_MS,
        contactListNamePattern: env.CONTACT_LIST_NAME_PATTERN,
        pauseOnVendorFailureMs: env.PAUSE_ON_VENDOR_FAILURE_MS,
        pauseOnAuthFailureMs: env.PAUSE_ON_AUTH_FAILURE_MS,
      },
      {
        store: env.IDEMPOTENCY_STORE,
        redisUrl: env.REDIS_URL,
        keyPrefix: env.IDEMPOTENCY_KEY_PREFIX,
        ttlSeconds: env.IDEMPOTENCY_TTL_SECONDS,
        claimTtlMs: env.IDEMPOTENCY_CLAIM_TTL_MS,
        instanceTtlMs: env.IDEMPOTENCY_INSTANCE_TTL_MS,
        ambiguousSendPolicy: env.AMBIGUOUS_SEND_POLICY,
      },
      env.SHUTDOWN_TIMEOUT_MS,
    );
  }

  /** Every inbound topic the consumer subscribes to. */
  get inboundTopics(): string[] {
    const t = this.topics;
    return [
      ...new Set([t.userSignedUp, t.orderPlaced, t.campaignRequested, t.contactListRequested]),
    ];
  }

  /** Every topic the service reads or writes. */
  get allTopics(): string[] {
    const t = this.topics;
    const outbound = [t.campaignSent, t.contactListCreated, t.dispatchFailed, t.deadLetter];
    return [...new Set([...this.inboundTopics, ...outbound])];
  }

  /** Keys are replaced so that the object can be logged or inspected safely. */
  toJSON(): object {
    return {
      ...this,
      kafka: {
        ...this.kafka,
        sasl: this.kafka.sasl && { ...this.kafka.sasl, password: '[redacted]' },
      },
      vendor: { ...this.vendor, relayAccessToken: '[redacted]', apiKey: '[redacted]' },
      idempotency: { ...this.idempotency, redisUrl: redactUrl(this.idempotency.redisUrl) },
    };
  }
}

/** A Redis URL may carry a password: keep the host, drop the credentials. */
function redactUrl(value: string): string {
  try {
    const url = new URL(value);
    if (url.password) url.password = 'redacted';
    return url.toString();
  } catch {
    return '[unparseable]';
  }
}
