import { parseVendorRate } from './vendor-rate';
import type { EnvironmentVariables } from './environment.dto';
import { canonicalTimeZone } from '../contracts/time-zone';
import { kafkaSecrets, kafkaSecurityFrom, redactKafkaSecurity } from './kafka-security';

/** A stop's wait for vendor requests on the wire, unless SHUTDOWN_VENDOR_WAIT_MS says. */
const DEFAULT_VENDOR_WAIT_MS = 5_000;

/**
 * Where each validated variable lands in `AppConfig`, one function per section. The sections'
 * types below are inferred from them, so a new setting is its field in its area's class (in
 * `environment/`) plus one line here.
 */
function sectionsFrom(env: EnvironmentVariables) {
  return {
    mode: env.MAILBRIDGE_MODE,
    logLevel: env.LOG_LEVEL,
    logFormat: env.LOG_FORMAT,
    logBufferMaxBytes: env.LOG_BUFFER_MAX_BYTES,
    httpPort: env.HTTP_PORT,
    kafka: kafkaFrom(env),
    topics: topicsFrom(env),
    results: resultsFrom(env),
    vendor: vendorFrom(env),
    /** The pace all replicas keep together per vendor endpoint and key (`src/cluster/`). */
    requestBudget: requestBudgetFrom(env),
    sender: senderFrom(env),
    consumer: consumerFrom(env),
    batching: batchingFrom(env),
    idempotency: idempotencyFrom(env),
    /** The suppression list's address hashing (`src/suppression/`). */
    suppression: { hashKey: env.SUPPRESSION_HASH_KEY },
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
    /** How long a stop waits for vendor requests already written before aborting them. */
    shutdownVendorWaitMs:
      env.SHUTDOWN_VENDOR_WAIT_MS ??
      Math.min(DEFAULT_VENDOR_WAIT_MS, Math.floor(env.SHUTDOWN_TIMEOUT_MS / 3)),
    templates: templatesFrom(env),
    unsubscribe: unsubscribeFrom(env),
  };
}

function kafkaFrom(env: EnvironmentVariables) {
  return {
    brokers: env.KAFKA_BROKERS.split(','),
    /** `ssl` (false or TLS options) and `sasl` (undefined or one mechanism's settings). */
    ...kafkaSecurityFrom(env),
    clientId: env.KAFKA_CLIENT_ID,
    groupId: env.KAFKA_GROUP_ID,
    /** Create missing topics at startup (local mode); in production topics are provisioned. */
    createTopics: env.KAFKA_CREATE_TOPICS,
    topicPartitions: env.KAFKA_TOPIC_PARTITIONS,
    /** -1: the broker's default. */
    replicationFactor: env.KAFKA_REPLICATION_FACTOR,
    /** How long a member may go without a heartbeat before its partitions go to another. */
    sessionTimeoutMs: env.KAFKA_SESSION_TIMEOUT_MS,
  };
}

function topicsFrom(env: EnvironmentVariables) {
  return {
    userSignedUp: env.TOPIC_USER_SIGNED_UP,
    orderPlaced: env.TOPIC_ORDER_PLACED,
    campaignRequested: env.TOPIC_CAMPAIGN_REQUESTED,
    contactListRequested: env.TOPIC_CONTACT_LIST_REQUESTED,
    suppressionRequested: env.TOPIC_SUPPRESSION_REQUESTED,
    campaignSent: env.TOPIC_CAMPAIGN_SENT,
    contactListCreated: env.TOPIC_CONTACT_LIST_CREATED,
    dispatchFailed: env.TOPIC_DISPATCH_FAILED,
    deadLetter: env.TOPIC_DEAD_LETTER,
    unsubscribed: env.TOPIC_UNSUBSCRIBED,
  };
}

function resultsFrom(env: EnvironmentVariables) {
  return {
    /** CloudEvents content mode of every result (`binary` or `structured`). */
    mode: env.RESULT_EVENT_MODE,
    /** Every result's CloudEvents `source`. */
    source: env.RESULT_EVENT_SOURCE,
  };
}

function vendorFrom(env: EnvironmentVariables) {
  return {
    relayBaseUrl: env.VENDOR_RELAY_BASE_URL.replace(/\/+$/, ''),
    baseUrl: env.VENDOR_BASE_URL.replace(/\/+$/, ''),
    contactsPath: env.VENDOR_CONTACTS_PATH,
    relayAccessToken: env.VENDOR_RELAY_ACCESS_TOKEN,
    relayTokenForm: env.VENDOR_RELAY_TOKEN_FORM,
    /** Whether the vendor escapes attribute values it merges into a body (templates adapt to it). */
    mergeEscapesHtml: env.VENDOR_MERGE_ESCAPES_HTML,
    apiKey: env.VENDOR_API_KEY,
    allowInsecureHosts: env.VENDOR_ALLOW_INSECURE_HOSTS,
    connectTimeoutMs: env.VENDOR_CONNECT_TIMEOUT_MS,
    headersTimeoutMs: env.VENDOR_HEADERS_TIMEOUT_MS,
    bodyTimeoutMs: env.VENDOR_BODY_TIMEOUT_MS,
    retryMaxAttempts: env.VENDOR_RETRY_MAX_ATTEMPTS,
    retryBaseMs: env.VENDOR_RETRY_BASE_MS,
    retryCapMs: env.VENDOR_RETRY_CAP_MS,
    retryAfterMaxMs: env.VENDOR_RETRY_AFTER_MAX_MS,
    /** Try again a request whose fate is unknown (AMBIGUOUS_SEND_POLICY=resend). */
    retryAmbiguous: env.AMBIGUOUS_SEND_POLICY === 'resend',
    maxRecipientsPerRequest: env.VENDOR_MAX_RECIPIENTS_PER_REQUEST,
    maxBodyBytes: env.VENDOR_MAX_BODY_BYTES,
    poolConnections: env.VENDOR_POOL_CONNECTIONS,
    chunkConcurrency: env.VENDOR_CHUNK_CONCURRENCY,
  };
}

function requestBudgetFrom(env: EnvironmentVariables) {
  return {
    /** Undefined: no pace (a 429's Retry-After still holds every replica back). */
    contacts: {
      rate: parseVendorRate(env.VENDOR_CONTACTS_RATE),
      burst: env.VENDOR_CONTACTS_BURST,
    },
    relay: { rate: parseVendorRate(env.VENDOR_RELAY_RATE), burst: env.VENDOR_RELAY_BURST },
    marginMs: env.VENDOR_RATE_MARGIN_MS,
  };
}

function senderFrom(env: EnvironmentVariables) {
  return {
    from: { name: env.SENDER_FROM_NAME, email: env.SENDER_FROM_EMAIL },
    // Spread, so that the type says what templates rely on: no reply-to unless one is set.
    ...(env.SENDER_REPLY_TO_EMAIL
      ? {
          replyTo: {
            name: env.SENDER_REPLY_TO_NAME ?? env.SENDER_FROM_NAME,
            email: env.SENDER_REPLY_TO_EMAIL,
          },
        }
      : {}),
    disableTrackingLinks: env.DISABLE_TRACKING_LINKS,
  };
}

function consumerFrom(env: EnvironmentVariables) {
  return {
    /** Records admitted at once per instance; beyond it, fetching waits. */
    maxInFlight: env.CONSUMER_MAX_IN_FLIGHT,
    /** Bytes of the records admitted at once; beyond it, fetching waits too. */
    maxInFlightBytes: env.CONSUMER_MAX_IN_FLIGHT_BYTES,
    commitIntervalMs: env.CONSUMER_COMMIT_INTERVAL_MS,
    /** Partitions whose batches are handled at once. */
    partitionsConcurrently: env.CONSUMER_PARTITIONS_CONCURRENTLY,
    maxEventBytes: env.MAX_EVENT_BYTES,
    /** Applied only to partitions for which the group has no committed offset. */
    startFrom: env.CONSUMER_START_FROM,
    /** How long the pipeline may make no progress while it has work before liveness fails. */
    livenessStallMs: env.LIVENESS_STALL_MS,
  };
}

function batchingFrom(env: EnvironmentVariables) {
  return {
    lingerMs: env.BATCH_LINGER_MS,
    /** Up to this, a campaign request keeps gathering while records wait that would fill it. */
    maxLingerMs: env.BATCH_MAX_LINGER_MS,
    maxRecipients: env.BATCH_MAX_RECIPIENTS,
    maxBytes: env.BATCH_MAX_BYTES,
    contactListWindowMs: env.CONTACT_LIST_WINDOW_MS,
    contactListMaxMembers: env.CONTACT_LIST_MAX_MEMBERS,
    /** A window starting further ahead of our clock than this is replaced by the current one. */
    contactListClockSkewMs: env.CONTACT_LIST_CLOCK_SKEW_MS,
    contactListNamePattern: env.CONTACT_LIST_NAME_PATTERN,
    /** Where an order goes once its window's list is being created (see `WindowStore`). */
    contactListLatePolicy: env.CONTACT_LIST_LATE_POLICY,
    pauseOnVendorFailureMs: env.PAUSE_ON_VENDOR_FAILURE_MS,
    pauseOnAuthFailureMs: env.PAUSE_ON_AUTH_FAILURE_MS,
  };
}

/** `host:port[,host:port…]` as addresses; undefined when unset. */
function hostPorts(list: string | undefined): Array<{ host: string; port: number }> | undefined {
  return list?.split(',').map((address) => {
    const at = address.lastIndexOf(':');
    return { host: address.slice(0, at), port: Number(address.slice(at + 1)) };
  });
}

function idempotencyFrom(env: EnvironmentVariables) {
  return {
    store: env.IDEMPOTENCY_STORE,
    /** `REDIS_URL`, with `REDIS_PASSWORD` in it when that is set. */
    redisUrl: withPassword(env.REDIS_URL, env.REDIS_PASSWORD),
    /** Set: the primary is found through these Sentinels, by `redisSentinelName`. */
    redisSentinels: hostPorts(env.REDIS_SENTINELS),
    /** Set: Redis runs in cluster mode, and these nodes are where the client starts. */
    redisClusterNodes: hostPorts(env.REDIS_CLUSTER_NODES),
    redisSentinelName: env.REDIS_SENTINEL_NAME,
    redisSentinelPassword: env.REDIS_SENTINEL_PASSWORD,
    /** What a `sending` mark or an outcome needs before it counts (see `ReplicaAcknowledgement`). */
    redisReplicas: {
      replicas: env.REDIS_WAIT_REPLICAS ?? (env.REDIS_SENTINELS || env.REDIS_CLUSTER_NODES ? 1 : 0),
      timeoutMs: env.REDIS_WAIT_TIMEOUT_MS,
      onShortfall: env.REDIS_REPLICA_SHORTFALL,
    },
    /** Namespace of the keys in Redis, for deployments (or benchmark runs) sharing one. */
    keyPrefix: env.IDEMPOTENCY_KEY_PREFIX,
    ttlSeconds: env.IDEMPOTENCY_TTL_SECONDS,
    /** How long a started send blocks others from the same event before it counts as abandoned. */
    claimTtlMs: env.IDEMPOTENCY_CLAIM_TTL_MS,
    /** How long an instance counts as alive after its last heartbeat; then its claims are free. */
    instanceTtlMs: env.IDEMPOTENCY_INSTANCE_TTL_MS,
    /** A send that may already have reached the vendor: send again, or fail it as ambiguous. */
    ambiguousSendPolicy: env.AMBIGUOUS_SEND_POLICY,
  };
}

function templatesFrom(env: EnvironmentVariables) {
  return {
    /** The reader's time zone when the event names none, or one not known: canonical (`UTC`). */
    timeZone: canonicalTimeZone(env.TEMPLATE_TIME_ZONE) ?? 'UTC',
  };
}

function unsubscribeFrom(env: EnvironmentVariables) {
  // Trimmed: a key file usually ends in a newline.
  const keys = [env.UNSUBSCRIBE_TOKEN_KEY, env.UNSUBSCRIBE_TOKEN_PREVIOUS_KEY]
    .map((key) => key?.trim())
    .filter((key): key is string => key !== undefined && key !== '');
  return {
    /** Without a key: no public listener, no links in marketing mail. */
    enabled: keys.length > 0,
    /** The current key first: it seals; both open. */
    tokenKeys: keys,
    tokenTtlSeconds: env.UNSUBSCRIBE_TOKEN_TTL_DAYS * 86_400,
    httpPort: env.UNSUBSCRIBE_HTTP_PORT,
    /** Local mode without one: the listener on loopback, where `npm run local` serves it. */
    baseUrl: (env.UNSUBSCRIBE_BASE_URL ?? `http://127.0.0.1:${env.UNSUBSCRIBE_HTTP_PORT}`).replace(
      /\/+$/,
      '',
    ),
    ratePerMinute: env.UNSUBSCRIBE_RATE_PER_MINUTE,
    trustedProxies: env.UNSUBSCRIBE_TRUSTED_PROXIES,
  };
}

/** What `AppConfig` holds, section by section. */
export type AppConfigSections = ReturnType<typeof sectionsFrom>;
export type KafkaConfig = AppConfigSections['kafka'];
export type TopicsConfig = AppConfigSections['topics'];
export type ResultsConfig = AppConfigSections['results'];
export type VendorConfig = AppConfigSections['vendor'];
export type RequestBudgetConfig = AppConfigSections['requestBudget'];
export type SenderConfig = AppConfigSections['sender'];
export type ConsumerConfig = AppConfigSections['consumer'];
export type BatchingConfig = AppConfigSections['batching'];
export type IdempotencyConfig = AppConfigSections['idempotency'];
export type TemplatesConfig = AppConfigSections['templates'];
export type UnsubscribeConfig = AppConfigSections['unsubscribe'];

/** The validated, typed configuration; built only by `loadConfig`, injected as `AppConfig`. */
export class AppConfig implements AppConfigSections {
  // Filled by the constructor from one object: sections are named, never passed by position.
  readonly mode!: AppConfigSections['mode'];
  readonly logLevel!: AppConfigSections['logLevel'];
  readonly logFormat!: AppConfigSections['logFormat'];
  readonly logBufferMaxBytes!: number;
  readonly httpPort!: number;
  readonly kafka!: KafkaConfig;
  readonly topics!: TopicsConfig;
  readonly results!: ResultsConfig;
  readonly vendor!: VendorConfig;
  readonly requestBudget!: RequestBudgetConfig;
  readonly sender!: SenderConfig;
  readonly consumer!: ConsumerConfig;
  readonly batching!: BatchingConfig;
  readonly idempotency!: IdempotencyConfig;
  readonly suppression!: AppConfigSections['suppression'];
  readonly shutdownTimeoutMs!: number;
  readonly shutdownVendorWaitMs!: number;
  readonly templates!: TemplatesConfig;
  readonly unsubscribe!: UnsubscribeConfig;

  private constructor(sections: AppConfigSections) {
    Object.assign(this, sections);
  }

  static from(env: EnvironmentVariables): AppConfig {
    return new AppConfig(sectionsFrom(env));
  }

  /** Every inbound topic the consumer subscribes to. */
  get inboundTopics(): string[] {
    const t = this.topics;
    return [
      ...new Set([
        t.userSignedUp,
        t.orderPlaced,
        t.campaignRequested,
        t.contactListRequested,
        t.suppressionRequested,
      ]),
    ];
  }

  /** Every topic the service reads or writes. */
  get allTopics(): string[] {
    const t = this.topics;
    const outbound = [
      t.campaignSent,
      t.contactListCreated,
      t.dispatchFailed,
      t.deadLetter,
      t.unsubscribed,
    ];
    return [...new Set([...this.inboundTopics, ...outbound])];
  }

  /** The values `toJSON` replaces: what must never be written to a log. */
  get secrets(): string[] {
    const candidates = [
      this.vendor.relayAccessToken,
      this.vendor.apiKey,
      ...kafkaSecrets(this.kafka),
      passwordOf(this.idempotency.redisUrl),
      this.idempotency.redisSentinelPassword,
      this.suppression.hashKey,
      ...this.unsubscribe.tokenKeys,
    ];
    return candidates.filter((s): s is string => typeof s === 'string' && s.length > 0);
  }

  /** Keys are replaced so that the object can be logged or inspected safely. */
  toJSON(): object {
    return {
      ...this,
      kafka: redactKafkaSecurity(this.kafka),
      vendor: { ...this.vendor, relayAccessToken: '[redacted]', apiKey: '[redacted]' },
      suppression: { hashKey: '[redacted]' },
      idempotency: {
        ...this.idempotency,
        redisUrl: redactUrl(this.idempotency.redisUrl),
        redisSentinelPassword: this.idempotency.redisSentinelPassword && '[redacted]',
      },
      unsubscribe: {
        ...this.unsubscribe,
        tokenKeys: this.unsubscribe.tokenKeys.map(() => '[redacted]'),
      },
    };
  }
}

function passwordOf(value: string): string | undefined {
  try {
    return decodeURIComponent(new URL(value).password) || undefined;
  } catch {
    return undefined;
  }
}

/** The URL with `password` as its password; as it is without one. */
function withPassword(value: string, password: string | undefined): string {
  if (!password) return value;
  const url = new URL(value);
  url.password = encodeURIComponent(password);
  return url.toString();
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
