import { Transform, Type } from 'class-transformer';
import {
  IsBoolean,
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
import { Default, LocalDefault, ReadableFromFile } from '../default.decorator';
import { ServiceEnvironment } from './service.env';
import { bool, httpUrl } from './values';

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

const HOSTNAME = /^[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$/;
const BROKER_LIST = /^[^\s,:]+:\d{1,5}(,[^\s,:]+:\d{1,5})*$/;
const usesPassword = (mechanism: SaslMechanism) =>
  mechanism !== 'none' && mechanism !== 'oauthbearer';

/** The brokers (`KAFKA_*`): where they are, who the service is to them, TLS and SASL. */
export class KafkaEnvironment extends ServiceEnvironment {
  /** Comma-separated `host:port` list of the brokers to bootstrap from. */
  @LocalDefault('127.0.0.1:9092')
  @IsNotEmpty({ message: 'KAFKA_BROKERS is required (comma-separated host:port list)' })
  @Matches(BROKER_LIST, { message: 'KAFKA_BROKERS must be a comma-separated host:port list' })
  KAFKA_BROKERS!: string;

  /** Kafka client id the service connects with. */
  @Default('mailbridge')
  @IsString()
  @IsNotEmpty()
  KAFKA_CLIENT_ID!: string;

  /** Consumer group shared by all replicas; each partition is read by one of them. */
  @Default('mailbridge')
  @IsString()
  @IsNotEmpty()
  KAFKA_GROUP_ID!: string;

  /** Connect to the brokers over TLS; their certificate and name are always verified. */
  @Default('false')
  @Transform(bool)
  @IsBoolean()
  KAFKA_SSL!: boolean;

  /**
   * PEM of the CA(s) the brokers' certificates chain to, instead of Node's default CAs.
   *
   * This and the TLS variables below are read once, at start (from their `_FILE` usually); they need
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

  /** Passphrase of an encrypted `KAFKA_SSL_KEY`. */
  @ReadableFromFile()
  @IsOptional()
  @IsString()
  KAFKA_SSL_KEY_PASSPHRASE?: string;

  /** The name the brokers' certificates are checked against, when it is not the broker's host. */
  @IsOptional()
  @Matches(HOSTNAME, { message: 'KAFKA_SSL_SERVERNAME must be a host name' })
  KAFKA_SSL_SERVERNAME?: string;

  /** SASL mechanism the service authenticates to the brokers with; `none`: no authentication. */
  @Default('none')
  @IsIn(SASL_MECHANISMS)
  KAFKA_SASL_MECHANISM!: SaslMechanism;

  /** SASL user; required with `plain` and `scram-*`. */
  @ValidateIf((env: KafkaEnvironment) => usesPassword(env.KAFKA_SASL_MECHANISM))
  @IsNotEmpty({
    message: 'KAFKA_SASL_USERNAME is required with KAFKA_SASL_MECHANISM plain or scram-*',
  })
  KAFKA_SASL_USERNAME?: string;

  /** SASL password; required with `plain` and `scram-*`. */
  @ReadableFromFile()
  @ValidateIf((env: KafkaEnvironment) => usesPassword(env.KAFKA_SASL_MECHANISM))
  @IsNotEmpty({
    message:
      'KAFKA_SASL_PASSWORD (or KAFKA_SASL_PASSWORD_FILE) is required with KAFKA_SASL_MECHANISM plain or scram-*',
  })
  KAFKA_SASL_PASSWORD?: string;

  /**
   * OAUTHBEARER: a file holding the token, read again at every authentication.
   *
   * Read at every authentication so that a sidecar or a projected volume can replace the token.
   * Or, instead, the client-credentials settings below.
   */
  @IsOptional()
  @IsString()
  KAFKA_SASL_OAUTHBEARER_TOKEN_FILE?: string;

  /**
   * OAUTHBEARER without a token file: the token endpoint for OAuth client credentials (https, or
   * http to loopback).
   */
  @IsOptional()
  @IsUrl(httpUrl, { message: 'KAFKA_SASL_OAUTHBEARER_TOKEN_URL must be an http(s) URL' })
  KAFKA_SASL_OAUTHBEARER_TOKEN_URL?: string;

  /** Client id at the token endpoint; required with `KAFKA_SASL_OAUTHBEARER_TOKEN_URL`. */
  @IsOptional()
  @IsString()
  KAFKA_SASL_OAUTHBEARER_CLIENT_ID?: string;

  /** Client secret at the token endpoint; required with `KAFKA_SASL_OAUTHBEARER_TOKEN_URL`. */
  @ReadableFromFile()
  @IsOptional()
  @IsString()
  KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET?: string;

  /** Space-separated scopes to ask the token endpoint for; none unless set. */
  @IsOptional()
  @IsString()
  KAFKA_SASL_OAUTHBEARER_SCOPE?: string;

  /**
   * How the client authenticates to the token endpoint: `basic` (Authorization header) or `post`
   * (form fields).
   */
  @Default('basic')
  @IsIn(OAUTH_CLIENT_AUTHS)
  KAFKA_SASL_OAUTHBEARER_CLIENT_AUTH!: OAuthClientAuth;

  /**
   * Create missing topics at start; `false`: start fails, naming each missing topic and its
   * variable.
   */
  @Default('false', { local: 'true' })
  @Transform(bool)
  @IsBoolean()
  KAFKA_CREATE_TOPICS!: boolean;

  /** Partitions of the topics created at start. */
  @Default('6')
  @Type(() => Number)
  @IsInt()
  @Min(1)
  KAFKA_TOPIC_PARTITIONS!: number;

  /** Replication factor of the topics created at start; `-1`: the broker's default. */
  @Default('-1')
  @Type(() => Number)
  @IsInt()
  @Min(-1)
  KAFKA_REPLICATION_FACTOR!: number;

  /**
   * How long the group waits for a member that stopped heartbeating before its partitions go to
   * another.
   *
   * After a crash, those partitions stand still this long. At least three heartbeats
   * (every 3 s, `kafka/kafka-tuning.ts`) so one late heartbeat does not cost a rebalance; at most
   * the broker's default `group.max.session.timeout.ms`.
   */
  @Default('30000')
  @Type(() => Number)
  @IsInt()
  @Min(9_000)
  @Max(1_800_000)
  KAFKA_SESSION_TIMEOUT_MS!: number;
}
