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
  Min,
  ValidateIf,
} from 'class-validator';

export const MODES = ['local', 'production'] as const;
export type Mode = (typeof MODES)[number];

export const TOKEN_FORMS = ['bare', 'token-prefix'] as const;
export type TokenForm = (typeof TOKEN_FORMS)[number];

export const IDEMPOTENCY_STORES = ['memory', 'redis'] as const;
export type IdempotencyStoreKind = (typeof IDEMPOTENCY_STORES)[number];

export const SASL_MECHANISMS = ['none', 'plain', 'scram-sha-256', 'scram-sha-512'] as const;
export type SaslMechanism = (typeof SASL_MECHANISMS)[number];

export const AMBIGUOUS_SEND_POLICIES = ['resend', 'fail'] as const;
export type AmbiguousSendPolicy = (typeof AMBIGUOUS_SEND_POLICIES)[number];

export const LOG_LEVELS = ['error', 'warn', 'log', 'debug', 'verbose'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const START_POSITIONS = ['latest', 'earliest'] as const;
export type StartPosition = (typeof START_POSITIONS)[number];

const BROKER_LIST = /^[^\s,:]+:\d{1,5}(,[^\s,:]+:\d{1,5})*$/;
const TOPIC = /^[a-zA-Z0-9._-]{1,249}$/;
const url = { require_tld: false, require_protocol: true, protocols: ['http', 'https'] };
const bool = ({ value }: { value: unknown }): unknown =>
  value === 'true' ? true : value === 'false' ? false : value;

/**
 * Every environment variable mailbridge reads, in one place. Values arrive as strings; the
 * decorators convert and validate them, and `loadConfig` reports every violation at once.
 * Defaults that depend on the mode live in `config.loader.ts`.
 */
export class EnvironmentVariables {
  @IsIn(MODES)
  MAILBRIDGE_MODE!: Mode;

  @IsIn(LOG_LEVELS)
  LOG_LEVEL!: LogLevel;

  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(65535)
  HTTP_PORT!: number;

  @IsNotEmpty({ message: 'KAFKA_BROKERS is required (comma-separated host:port list)' })
  @Matches(BROKER_LIST, { message: 'KAFKA_BROKERS must be a comma-separated host:port list' })
  KAFKA_BROKERS!: string;

  @IsString()
  @IsNotEmpty()
  KAFKA_CLIENT_ID!: string;

  @IsString()
  @IsNotEmpty()
  KAFKA_GROUP_ID!: string;

  @Transform(bool)
  @IsBoolean()
  KAFKA_SSL!: boolean;

  @IsIn(SASL_MECHANISMS)
  KAFKA_SASL_MECHANISM!: SaslMechanism;

  @ValidateIf((env: EnvironmentVariables) => env.KAFKA_SASL_MECHANISM !== 'none')
  @IsNotEmpty({ message: 'KAFKA_SASL_USERNAME is required when KAFKA_SASL_MECHANISM is set' })
  KAFKA_SASL_USERNAME?: string;

  @ValidateIf((env: EnvironmentVariables) => env.KAFKA_SASL_MECHANISM !== 'none')
  @IsNotEmpty({
    message:
      'KAFKA_SASL_PASSWORD (or KAFKA_SASL_PASSWORD_FILE) is required when KAFKA_SASL_MECHANISM is set',
  })
  KAFKA_SASL_PASSWORD?: string;

  @Transform(bool)
  @IsBoolean()
  KAFKA_CREATE_TOPICS!: boolean;

  @Type(() => Number)
  @IsInt()
  @Min(1)
  KAFKA_TOPIC_PARTITIONS!: number;

  @Type(() => Number)
  @IsInt()
  @Min(-1)
  KAFKA_REPLICATION_FACTOR!: number;

  @Matches(TOPIC)
  TOPIC_USER_SIGNED_UP!: string;

  @Matches(TOPIC)
  TOPIC_ORDER_PLACED!: string;

  @Matches(TOPIC)
  TOPIC_CAMPAIGN_REQUESTED!: string;

  @Matches(TOPIC)
  TOPIC_CONTACT_LIST_REQUESTED!: string;

  @Matches(TOPIC)
  TOPIC_CAMPAIGN_SENT!: string;

  @Matches(TOPIC)
  TOPIC_CONTACT_LIST_CREATED!: string;

  @Matches(TOPIC)
  TOPIC_DISPATCH_FAILED!: string;

  @Matches(TOPIC)
  TOPIC_DEAD_LETTER!: string;

  @IsUrl(url, { message: 'VENDOR_RELAY_BASE_URL must be an http(s) URL' })
  VENDOR_RELAY_BASE_URL!: string;

  @IsUrl(url, { message: 'VENDOR_BASE_URL must be an http(s) URL' })
  VENDOR_BASE_URL!: string;

  @Matches(/^\/[A-Za-z0-9/_-]*$/, {
    message: 'VENDOR_CONTACTS_PATH must be a path starting with /',
  })
  VENDOR_CONTACTS_PATH!: string;

  @IsNotEmpty({
    message: 'VENDOR_RELAY_ACCESS_TOKEN (or VENDOR_RELAY_ACCESS_TOKEN_FILE) is required',
  })
  VENDOR_RELAY_ACCESS_TOKEN!: string;

  @IsIn(TOKEN_FORMS)
  VENDOR_RELAY_TOKEN_FORM!: TokenForm;

  @IsNotEmpty({ message: 'VENDOR_API_KEY (or VENDOR_API_KEY_FILE) is required' })
  VENDOR_API_KEY!: string;

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

  @Type(() => Number)
  @IsInt()
  @Min(1)
  VENDOR_CONNECT_TIMEOUT_MS!: number;

  @Type(() => Number)
  @IsInt()
  @Min(1)
  VENDOR_HEADERS_TIMEOUT_MS!: number;

  @Type(() => Number)
  @IsInt()
  @Min(1)
  VENDOR_BODY_TIMEOUT_MS!: number;

  /** Attempts per vendor request, the first included; 1 turns retries off. */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  VENDOR_RETRY_MAX_ATTEMPTS!: number;

  @Type(() => Number)
  @IsInt()
  @Min(1)
  VENDOR_RETRY_BASE_MS!: number;

  @Type(() => Number)
  @IsInt()
  @Min(1)
  VENDOR_RETRY_CAP_MS!: number;

  /** A Retry-After longer than this ends the retries: the caller pauses instead. */
  @Type(() => Number)
  @IsInt()
  @Min(0)
  VENDOR_RETRY_AFTER_MAX_MS!: number;

  @Type(() => Number)
  @IsInt()
  @Min(1)
  VENDOR_MAX_RECIPIENTS_PER_REQUEST!: number;

  @Type(() => Number)
  @IsInt()
  @Min(1024)
  VENDOR_MAX_BODY_BYTES!: number;

  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1024)
  VENDOR_POOL_CONNECTIONS!: number;

  /** Requests of one split campaign in flight at once. */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(256)
  VENDOR_CHUNK_CONCURRENCY!: number;

  @IsEmail({}, { message: 'SENDER_FROM_EMAIL must be an email address' })
  SENDER_FROM_EMAIL!: string;

  @IsString()
  @IsNotEmpty()
  SENDER_FROM_NAME!: string;

  @IsOptional()
  @IsEmail({}, { message: 'SENDER_REPLY_TO_EMAIL must be an email address' })
  SENDER_REPLY_TO_EMAIL?: string;

  @IsOptional()
  @IsString()
  SENDER_REPLY_TO_NAME?: string;

  @Transform(bool)
  @IsBoolean()
  DISABLE_TRACKING_LINKS!: boolean;

  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100000)
  CONSUMER_MAX_IN_FLIGHT!: number;

  @Type(() => Number)
  @IsInt()
  @Min(50)
  CONSUMER_COMMIT_INTERVAL_MS!: number;

  /** Where a group without a committed offset starts reading a partition. */
  @IsIn(START_POSITIONS)
  CONSUMER_START_FROM!: StartPosition;

  /** No progress for this long, with records waiting and the vendor gate open, fails liveness. */
  @Type(() => Number)
  @IsInt()
  @Min(1000)
  LIVENESS_STALL_MS!: number;

  @Type(() => Number)
  @IsInt()
  @Min(1024)
  MAX_EVENT_BYTES!: number;

  @Type(() => Number)
  @IsInt()
  @Min(0)
  BATCH_LINGER_MS!: number;

  @Type(() => Number)
  @IsInt()
  @Min(1)
  BATCH_MAX_RECIPIENTS!: number;

  @Type(() => Number)
  @IsInt()
  @Min(1024)
  BATCH_MAX_BYTES!: number;

  @Type(() => Number)
  @IsInt()
  @Min(0)
  CONTACT_LIST_WINDOW_MS!: number;

  @Type(() => Number)
  @IsInt()
  @Min(1)
  CONTACT_LIST_MAX_MEMBERS!: number;

  /** How far ahead of our clock an order's `placedAt` may be and still choose its own window. */
  @Type(() => Number)
  @IsInt()
  @Min(0)
  CONTACT_LIST_CLOCK_SKEW_MS!: number;

  @Matches(/\{window\}/, { message: 'CONTACT_LIST_NAME_PATTERN must contain {window}' })
  CONTACT_LIST_NAME_PATTERN!: string;

  @Type(() => Number)
  @IsInt()
  @Min(0)
  PAUSE_ON_VENDOR_FAILURE_MS!: number;

  @Type(() => Number)
  @IsInt()
  @Min(0)
  PAUSE_ON_AUTH_FAILURE_MS!: number;

  @IsIn(IDEMPOTENCY_STORES)
  IDEMPOTENCY_STORE!: IdempotencyStoreKind;

  @IsUrl(
    { require_tld: false, require_protocol: true, protocols: ['redis', 'rediss'] },
    { message: 'REDIS_URL must be a redis:// or rediss:// URL' },
  )
  REDIS_URL!: string;

  @Matches(/^[\w:.-]{0,100}$/, {
    message: 'IDEMPOTENCY_KEY_PREFIX may hold letters, digits and _ : . -',
  })
  IDEMPOTENCY_KEY_PREFIX!: string;

  @Type(() => Number)
  @IsInt()
  @Min(60)
  IDEMPOTENCY_TTL_SECONDS!: number;

  @Type(() => Number)
  @IsInt()
  @Min(1000)
  IDEMPOTENCY_CLAIM_TTL_MS!: number;

  @Type(() => Number)
  @IsInt()
  @Min(1000)
  IDEMPOTENCY_INSTANCE_TTL_MS!: number;

  @IsIn(AMBIGUOUS_SEND_POLICIES)
  AMBIGUOUS_SEND_POLICY!: AmbiguousSendPolicy;

  @Type(() => Number)
  @IsInt()
  @Min(1000)
  SHUTDOWN_TIMEOUT_MS!: number;
}
