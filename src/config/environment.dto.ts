import { Transform, Type } from 'class-transformer';
import {
  IsBoolean,
  IsEmail,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';
import { Default, LocalDefault, MODES, ReadableFromFile, type Mode } from './default.decorator';
import { VENDOR_RATE_FORM } from './vendor-rate';
import { SANDBOX_API_KEY, SANDBOX_PORT, SANDBOX_RELAY_ACCESS_TOKEN } from './sandbox-defaults';
import {
  DEFAULT_RESULT_SOURCE,
  RESULT_EVENT_MODES,
  type ResultEventMode,
} from '../contracts/result-event';

export const TOKEN_FORMS = ['bare', 'token-prefix'] as const;
export type TokenForm = (typeof TOKEN_FORMS)[number];

export const IDEMPOTENCY_STORES = ['memory', 'redis'] as const;
export type IdempotencyStoreKind = (typeof IDEMPOTENCY_STORES)[number];

export const SASL_MECHANISMS = [
  'none',
  'plain',
  'scram-sha-256',
  'scram-sha-512',
  'oauthbearer',
] as const;
export type SaslMechanism = (typeof SASL_MECHANISMS)[number];

export const OAUTH_CLIENT_AUTHS = ['basic', 'post'] as const;
export type OAuthClientAuth = (typeof OAUTH_CLIENT_AUTHS)[number];

export const CONTACT_LIST_LATE_POLICIES = ['follow-up', 'next-window'] as const;
export type ContactListLatePolicy = (typeof CONTACT_LIST_LATE_POLICIES)[number];

export const AMBIGUOUS_SEND_POLICIES = ['resend', 'fail'] as const;
export type AmbiguousSendPolicy = (typeof AMBIGUOUS_SEND_POLICIES)[number];

export const LOG_LEVELS = ['error', 'warn', 'log', 'debug', 'verbose'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export const START_POSITIONS = ['latest', 'earliest'] as const;
export type StartPosition = (typeof START_POSITIONS)[number];

const HOSTNAME = /^[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$/;
const BROKER_LIST = /^[^\s,:]+:\d{1,5}(,[^\s,:]+:\d{1,5})*$/;
const TOPIC = /^[a-zA-Z0-9._-]{1,249}$/;
/** RFC 3986 characters, every `%` starting a two-digit escape: what a CloudEvents `source` may be. */
const URI_REFERENCE = /^(?:[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})+$/;
const url = { require_tld: false, require_protocol: true, protocols: ['http', 'https'] };
const usesPassword = (mechanism: SaslMechanism) =>
  mechanism !== 'none' && mechanism !== 'oauthbearer';
const bool = ({ value }: { value: unknown }): unknown =>
  value === 'true' ? true : value === 'false' ? false : value;

/**
 * Every environment variable mailbridge reads, in one place, each with its default: `@Default`
 * holds in production and, unless it gives one of its own, in local mode; `@LocalDefault` only in
 * local mode (production requires the variable). Values arrive as strings; the other decorators
 * convert and validate them, and `loadConfig` reports every violation at once. A new setting is
 * a field here plus the line in `app-config.ts` that puts it into `AppConfig`.
 */
export class EnvironmentVariables {
  /** Chooses the defaults, so it has none of its own here: `loadConfig` takes `production`. */
  @IsIn(MODES)
  MAILBRIDGE_MODE!: Mode;

  @Default('log')
  @IsIn(LOG_LEVELS)
  LOG_LEVEL!: LogLevel;

  /** `json`: one object per line, for a log collector; `pretty`: text for a terminal. */
  @Default('json', { local: 'pretty' })
  @IsIn(LOG_FORMATS)
  LOG_FORMAT!: LogFormat;

  /**
   * The most the service holds of log lines stdout has not taken yet: past it a line is dropped,
   * counted and reported, rather than kept in memory while stdout's reader falls behind.
   */
  @Default('8388608')
  @Type(() => Number)
  @IsInt()
  @Min(65536)
  @Max(134217728)
  LOG_BUFFER_MAX_BYTES!: number;

  @Default('3000')
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(65535)
  HTTP_PORT!: number;

  @LocalDefault('127.0.0.1:9092')
  @IsNotEmpty({ message: 'KAFKA_BROKERS is required (comma-separated host:port list)' })
  @Matches(BROKER_LIST, { message: 'KAFKA_BROKERS must be a comma-separated host:port list' })
  KAFKA_BROKERS!: string;

  @Default('mailbridge')
  @IsString()
  @IsNotEmpty()
  KAFKA_CLIENT_ID!: string;

  @Default('mailbridge')
  @IsString()
  @IsNotEmpty()
  KAFKA_GROUP_ID!: string;

  @Default('false')
  @Transform(bool)
  @IsBoolean()
  KAFKA_SSL!: boolean;

  /**
   * PEM of the CA(s) the brokers' certificates chain to, instead of Node's default CAs. This and
   * the TLS variables below are read once, at start (from their `_FILE` usually); they need
   * `KAFKA_SSL=true`, and `kafka-security.ts` checks that they parse and fit together.
   */
  @ReadableFromFile()
  @IsOptional()
  @IsString()
  KAFKA_SSL_CA?: string;

  /** PEM client certificate (mTLS), with `KAFKA_SSL_KEY`. */
  @ReadableFromFile()
  @IsOptional()
  @IsString()
  KAFKA_SSL_CERT?: string;

  /** PEM private key of the client certificate; encrypted ones need the passphrase. */
  @ReadableFromFile()
  @IsOptional()
  @IsString()
  KAFKA_SSL_KEY?: string;

  @ReadableFromFile()
  @IsOptional()
  @IsString()
  KAFKA_SSL_KEY_PASSPHRASE?: string;

  /** The name the brokers' certificates are checked against, when it is not the broker's host. */
  @IsOptional()
  @Matches(HOSTNAME, { message: 'KAFKA_SSL_SERVERNAME must be a host name' })
  KAFKA_SSL_SERVERNAME?: string;

  @Default('none')
  @IsIn(SASL_MECHANISMS)
  KAFKA_SASL_MECHANISM!: SaslMechanism;

  @ValidateIf((env: EnvironmentVariables) => usesPassword(env.KAFKA_SASL_MECHANISM))
  @IsNotEmpty({
    message: 'KAFKA_SASL_USERNAME is required with KAFKA_SASL_MECHANISM plain or scram-*',
  })
  KAFKA_SASL_USERNAME?: string;

  @ReadableFromFile()
  @ValidateIf((env: EnvironmentVariables) => usesPassword(env.KAFKA_SASL_MECHANISM))
  @IsNotEmpty({
    message:
      'KAFKA_SASL_PASSWORD (or KAFKA_SASL_PASSWORD_FILE) is required with KAFKA_SASL_MECHANISM plain or scram-*',
  })
  KAFKA_SASL_PASSWORD?: string;

  /**
   * OAUTHBEARER: a file holding the token, read again at every authentication, so that a sidecar
   * or a projected volume can replace it. Or, instead, the client-credentials settings below.
   */
  @IsOptional()
  @IsString()
  KAFKA_SASL_OAUTHBEARER_TOKEN_FILE?: string;

  @IsOptional()
  @IsUrl(url, { message: 'KAFKA_SASL_OAUTHBEARER_TOKEN_URL must be an http(s) URL' })
  KAFKA_SASL_OAUTHBEARER_TOKEN_URL?: string;

  @IsOptional()
  @IsString()
  KAFKA_SASL_OAUTHBEARER_CLIENT_ID?: string;

  @ReadableFromFile()
  @IsOptional()
  @IsString()
  KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET?: string;

  /** Space-separated scopes to ask the token endpoint for; none unless set. */
  @IsOptional()
  @IsString()
  KAFKA_SASL_OAUTHBEARER_SCOPE?: string;

  @Default('basic')
  @IsIn(OAUTH_CLIENT_AUTHS)
  KAFKA_SASL_OAUTHBEARER_CLIENT_AUTH!: OAuthClientAuth;

  @Default('false', { local: 'true' })
  @Transform(bool)
  @IsBoolean()
  KAFKA_CREATE_TOPICS!: boolean;

  @Default('6')
  @Type(() => Number)
  @IsInt()
  @Min(1)
  KAFKA_TOPIC_PARTITIONS!: number;

  @Default('-1')
  @Type(() => Number)
  @IsInt()
  @Min(-1)
  KAFKA_REPLICATION_FACTOR!: number;

  /**
   * How long the group waits for a member that stopped heartbeating before its partitions go to
   * another: after a crash, those partitions stand still this long. At least three heartbeats
   * (every 3 s, `kafka/kafka-tuning.ts`) so one late heartbeat does not cost a rebalance; at most
   * the broker's default `group.max.session.timeout.ms`.
   */
  @Default('30000')
  @Type(() => Number)
  @IsInt()
  @Min(9_000)
  @Max(1_800_000)
  KAFKA_SESSION_TIMEOUT_MS!: number;

  @Default('user.signed_up.v1')
  @Matches(TOPIC)
  TOPIC_USER_SIGNED_UP!: string;

  @Default('order.placed.v1')
  @Matches(TOPIC)
  TOPIC_ORDER_PLACED!: string;

  @Default('email.campaign.requested.v1')
  @Matches(TOPIC)
  TOPIC_CAMPAIGN_REQUESTED!: string;

  @Default('email.contact_list.requested.v1')
  @Matches(TOPIC)
  TOPIC_CONTACT_LIST_REQUESTED!: string;

  @Default('email.campaign.sent.v1')
  @Matches(TOPIC)
  TOPIC_CAMPAIGN_SENT!: string;

  @Default('email.contact_list.created.v1')
  @Matches(TOPIC)
  TOPIC_CONTACT_LIST_CREATED!: string;

  @Default('email.dispatch.failed.v1')
  @Matches(TOPIC)
  TOPIC_DISPATCH_FAILED!: string;

  @Default('mailbridge.dead-letter.v1')
  @Matches(TOPIC)
  TOPIC_DEAD_LETTER!: string;

  /** CloudEvents content mode of the results: `ce_` headers (binary) or one JSON document. */
  @Default('binary')
  @IsIn(RESULT_EVENT_MODES)
  RESULT_EVENT_MODE!: ResultEventMode;

  /** The results' CloudEvents `source`: a URI-reference naming this service. */
  @Default(DEFAULT_RESULT_SOURCE)
  @MaxLength(1000)
  @Matches(URI_REFERENCE, {
    message:
      'RESULT_EVENT_SOURCE must be a URI-reference (e.g. mailbridge or /services/mailbridge)',
  })
  RESULT_EVENT_SOURCE!: string;

  @Default('https://api.tinyemail.com/relay/v1', {
    local: `http://127.0.0.1:${SANDBOX_PORT}/relay/v1`,
  })
  @IsUrl(url, { message: 'VENDOR_RELAY_BASE_URL must be an http(s) URL' })
  VENDOR_RELAY_BASE_URL!: string;

  @Default('https://api.tinyemail.com/v1', { local: `http://127.0.0.1:${SANDBOX_PORT}/v1` })
  @IsUrl(url, { message: 'VENDOR_BASE_URL must be an http(s) URL' })
  VENDOR_BASE_URL!: string;

  @Default('/contacts')
  @Matches(/^\/[A-Za-z0-9/_-]*$/, {
    message: 'VENDOR_CONTACTS_PATH must be a path starting with /',
  })
  VENDOR_CONTACTS_PATH!: string;

  @LocalDefault(SANDBOX_RELAY_ACCESS_TOKEN)
  @ReadableFromFile()
  @IsNotEmpty({
    message: 'VENDOR_RELAY_ACCESS_TOKEN (or VENDOR_RELAY_ACCESS_TOKEN_FILE) is required',
  })
  VENDOR_RELAY_ACCESS_TOKEN!: string;

  @Default('bare')
  @IsIn(TOKEN_FORMS)
  VENDOR_RELAY_TOKEN_FORM!: TokenForm;

  @LocalDefault(SANDBOX_API_KEY)
  @ReadableFromFile()
  @IsNotEmpty({ message: 'VENDOR_API_KEY (or VENDOR_API_KEY_FILE) is required' })
  VENDOR_API_KEY!: string;

  @Default('')
  @Transform(({ value }: { value: unknown }) =>
    typeof value === 'string'
      ? value
          .split(',')
          .map((h) => h.trim())
          .filter(Boolean)
      : value,
  )
  @IsString({ each: true })
  VENDOR_ALLOW_INSECURE_HOSTS!: string[];

  @Default('5000')
  @Type(() => Number)
  @IsInt()
  @Min(1)
  VENDOR_CONNECT_TIMEOUT_MS!: number;

  @Default('15000')
  @Type(() => Number)
  @IsInt()
  @Min(1)
  VENDOR_HEADERS_TIMEOUT_MS!: number;

  @Default('15000')
  @Type(() => Number)
  @IsInt()
  @Min(1)
  VENDOR_BODY_TIMEOUT_MS!: number;

  /** Attempts per vendor request, the first included; 1 turns retries off. */
  @Default('6')
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  VENDOR_RETRY_MAX_ATTEMPTS!: number;

  @Default('250')
  @Type(() => Number)
  @IsInt()
  @Min(1)
  VENDOR_RETRY_BASE_MS!: number;

  @Default('30000')
  @Type(() => Number)
  @IsInt()
  @Min(1)
  VENDOR_RETRY_CAP_MS!: number;

  /** A Retry-After longer than this ends the retries: the caller pauses instead. */
  @Default('120000')
  @Type(() => Number)
  @IsInt()
  @Min(0)
  VENDOR_RETRY_AFTER_MAX_MS!: number;

  @Default('1000')
  @Type(() => Number)
  @IsInt()
  @Min(1)
  VENDOR_MAX_RECIPIENTS_PER_REQUEST!: number;

  @Default('5242880')
  @Type(() => Number)
  @IsInt()
  @Min(1024)
  VENDOR_MAX_BODY_BYTES!: number;

  @Default('32')
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1024)
  VENDOR_POOL_CONNECTIONS!: number;

  /** Requests of one split campaign in flight at once. */
  @Default('4')
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(256)
  VENDOR_CHUNK_CONCURRENCY!: number;

  /**
   * Contact-list requests the vendor may receive per period from all replicas together, counted
   * per API key: `60/min`, `10/s`, `1000/h` or `off`. The vendor documents 60 per minute.
   */
  @Default('60/min')
  @Matches(VENDOR_RATE_FORM, {
    message: 'VENDOR_CONTACTS_RATE must be off or <count>/<s|min|h>, such as 60/min',
  })
  VENDOR_CONTACTS_RATE!: string;

  /** Contact-list requests that may go at once after a quiet spell (lowers the steady pace). */
  @Default('1')
  @Type(() => Number)
  @IsInt()
  @Min(1)
  VENDOR_CONTACTS_BURST!: number;

  /** The same for campaign sends; `off` by default: the vendor documents no limit. */
  @Default('off')
  @Matches(VENDOR_RATE_FORM, {
    message: 'VENDOR_RELAY_RATE must be off or <count>/<s|min|h>, such as 10/s',
  })
  VENDOR_RELAY_RATE!: string;

  @Default('1')
  @Type(() => Number)
  @IsInt()
  @Min(1)
  VENDOR_RELAY_BURST!: number;

  /**
   * Added to each rate's period when spacing requests, so that requests granted a period apart
   * still arrive a period apart when the way to the vendor delays one more than another.
   */
  @Default('1000')
  @Type(() => Number)
  @IsInt()
  @Min(0)
  VENDOR_RATE_MARGIN_MS!: number;

  @LocalDefault('hello@mailbridge.local')
  @IsEmail({}, { message: 'SENDER_FROM_EMAIL must be an email address' })
  SENDER_FROM_EMAIL!: string;

  @Default('mailbridge')
  @IsString()
  @IsNotEmpty()
  SENDER_FROM_NAME!: string;

  @IsOptional()
  @IsEmail({}, { message: 'SENDER_REPLY_TO_EMAIL must be an email address' })
  SENDER_REPLY_TO_EMAIL?: string;

  @IsOptional()
  @IsString()
  SENDER_REPLY_TO_NAME?: string;

  @Default('false')
  @Transform(bool)
  @IsBoolean()
  DISABLE_TRACKING_LINKS!: boolean;

  /**
   * Records held at once. 2,000 keep a full campaign batch gathering while the last one is at the
   * vendor (about 1,000 recipients per request in the benchmark's backlog) and fit, with the heap
   * limit the image sets, in a 256 MB container.
   */
  @Default('2000')
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100000)
  CONSUMER_MAX_IN_FLIGHT!: number;

  /**
   * Bytes (keys and values) of the records held at once. With CONSUMER_MAX_IN_FLIGHT it bounds
   * what a backlog costs in memory: 16 MiB of events is a few times that on the heap, well inside
   * a 256 MB container.
   */
  @Default('16777216')
  @Type(() => Number)
  @IsInt()
  @Min(65536)
  CONSUMER_MAX_IN_FLIGHT_BYTES!: number;

  @Default('1000')
  @Type(() => Number)
  @IsInt()
  @Min(50)
  CONSUMER_COMMIT_INTERVAL_MS!: number;

  /** Partitions whose batches are handled at once; `CONSUMER_MAX_IN_FLIGHT` still bounds records. */
  @Default('16')
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1024)
  CONSUMER_PARTITIONS_CONCURRENTLY!: number;

  /**
   * Where a group without a committed offset starts reading a partition. Production starts at the
   * end: a new group deployed against an existing topic must not email everyone still in retention.
   */
  @Default('latest', { local: 'earliest' })
  @IsIn(START_POSITIONS)
  CONSUMER_START_FROM!: StartPosition;

  /** No progress for this long, with records waiting and the vendor gate open, fails liveness. */
  @Default('300000')
  @Type(() => Number)
  @IsInt()
  @Min(1000)
  LIVENESS_STALL_MS!: number;

  @Default('262144')
  @Type(() => Number)
  @IsInt()
  @Min(1024)
  MAX_EVENT_BYTES!: number;

  @Default('100')
  @Type(() => Number)
  @IsInt()
  @Min(0)
  BATCH_LINGER_MS!: number;

  /** While the consumer is behind, how long a campaign request not yet full may keep gathering. */
  @Default('1000')
  @Type(() => Number)
  @IsInt()
  @Min(0)
  BATCH_MAX_LINGER_MS!: number;

  @Default('1000')
  @Type(() => Number)
  @IsInt()
  @Min(1)
  BATCH_MAX_RECIPIENTS!: number;

  @Default('4194304')
  @Type(() => Number)
  @IsInt()
  @Min(1024)
  BATCH_MAX_BYTES!: number;

  @Default('10000')
  @Type(() => Number)
  @IsInt()
  @Min(0)
  CONTACT_LIST_WINDOW_MS!: number;

  @Default('1000')
  @Type(() => Number)
  @IsInt()
  @Min(1)
  CONTACT_LIST_MAX_MEMBERS!: number;

  /** How far ahead of our clock an order's `placedAt` may be and still choose its own window. */
  @Default('30000')
  @Type(() => Number)
  @IsInt()
  @Min(0)
  CONTACT_LIST_CLOCK_SKEW_MS!: number;

  /**
   * An order arriving once its window's list is being created: into a follow-up list of its
   * window (`<list>-late-<n>`), or into the window of the present.
   */
  @Default('follow-up')
  @IsIn(CONTACT_LIST_LATE_POLICIES)
  CONTACT_LIST_LATE_POLICY!: ContactListLatePolicy;

  @Default('new-customers-{window}')
  @Matches(/\{window\}/, { message: 'CONTACT_LIST_NAME_PATTERN must contain {window}' })
  CONTACT_LIST_NAME_PATTERN!: string;

  @Default('5000')
  @Type(() => Number)
  @IsInt()
  @Min(0)
  PAUSE_ON_VENDOR_FAILURE_MS!: number;

  @Default('60000')
  @Type(() => Number)
  @IsInt()
  @Min(0)
  PAUSE_ON_AUTH_FAILURE_MS!: number;

  @Default('redis', { local: 'memory' })
  @IsIn(IDEMPOTENCY_STORES)
  IDEMPOTENCY_STORE!: IdempotencyStoreKind;

  @Default('redis://127.0.0.1:6379')
  @IsUrl(
    { require_tld: false, require_protocol: true, protocols: ['redis', 'rediss'] },
    { message: 'REDIS_URL must be a redis:// or rediss:// URL' },
  )
  REDIS_URL!: string;

  @Default('mailbridge:idem:')
  @Matches(/^[\w:.-]{0,100}$/, {
    message: 'IDEMPOTENCY_KEY_PREFIX may hold letters, digits and _ : . -',
  })
  IDEMPOTENCY_KEY_PREFIX!: string;

  @Default('604800')
  @Type(() => Number)
  @IsInt()
  @Min(60)
  IDEMPOTENCY_TTL_SECONDS!: number;

  @Default('120000')
  @Type(() => Number)
  @IsInt()
  @Min(1000)
  IDEMPOTENCY_CLAIM_TTL_MS!: number;

  @Default('10000')
  @Type(() => Number)
  @IsInt()
  @Min(1000)
  IDEMPOTENCY_INSTANCE_TTL_MS!: number;

  @Default('resend')
  @IsIn(AMBIGUOUS_SEND_POLICIES)
  AMBIGUOUS_SEND_POLICY!: AmbiguousSendPolicy;

  @Default('15000')
  @Type(() => Number)
  @IsInt()
  @Min(1000)
  SHUTDOWN_TIMEOUT_MS!: number;

  /**
   * How long a stop waits for vendor requests already written; then they are aborted (their fate
   * unknown). Below SHUTDOWN_TIMEOUT_MS, so that the stop ends within it whatever the vendor does;
   * unset, 5 s or a third of SHUTDOWN_TIMEOUT_MS, whichever is shorter.
   */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  SHUTDOWN_VENDOR_WAIT_MS?: number;
}
