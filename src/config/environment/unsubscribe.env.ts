import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, IsUrl, Matches, Max, Min, ValidateIf } from 'class-validator';
import { Default, LocalDefault, ReadableFromFile } from '../default.decorator';
import { ConsentEnvironment } from './consent.env';
import { httpUrl } from './values';

/** A key only for local runs: its links reach nothing but a loopback listener. */
export const LOCAL_UNSUBSCRIBE_TOKEN_KEY = 'bG9jYWwtdW5zdWJzY3JpYmUta2V5LW5vdC1zZWNyZXQ=';

/** 32 bytes in base64, as `openssl rand -base64 32` prints them. */
const BASE64_32_BYTES = /^\s*[A-Za-z0-9+/]{43}=\s*$/;

/** One-click unsubscribe (`UNSUBSCRIBE_*`): its public listener, its links and their tokens. */
export class UnsubscribeEnvironment extends ConsentEnvironment {
  /**
   * The key that seals unsubscribe links, 32 random bytes in base64 (`openssl rand -base64 32`),
   * usually from `UNSUBSCRIBE_TOKEN_KEY_FILE`. Unset: no public listener and no links. Every
   * replica must have the same one; local: a fixed key.
   */
  @LocalDefault(LOCAL_UNSUBSCRIBE_TOKEN_KEY)
  @ReadableFromFile()
  @IsOptional()
  @Matches(BASE64_32_BYTES, {
    message: 'UNSUBSCRIBE_TOKEN_KEY must be 32 bytes in base64 (openssl rand -base64 32)',
  })
  UNSUBSCRIBE_TOKEN_KEY?: string;

  /**
   * During a key rotation, the key before `UNSUBSCRIBE_TOKEN_KEY`: links it sealed still work,
   * new ones are sealed with the current key. Drop it once the oldest link sealed with it has
   * expired (`UNSUBSCRIBE_TOKEN_TTL_DAYS` after the rotation).
   */
  @ReadableFromFile()
  @IsOptional()
  @Matches(BASE64_32_BYTES, {
    message: 'UNSUBSCRIBE_TOKEN_PREVIOUS_KEY must be 32 bytes in base64',
  })
  UNSUBSCRIBE_TOKEN_PREVIOUS_KEY?: string;

  /**
   * How long a link works after its email was planned; at least 60 days, since some markets'
   * law asks that an unsubscribe link work for 30 days after sending.
   */
  @Default('90')
  @Type(() => Number)
  @IsInt()
  @Min(60)
  @Max(3650)
  UNSUBSCRIBE_TOKEN_TTL_DAYS!: number;

  /**
   * Port of the public listener (`/unsubscribe/<token>` only), apart from `HTTP_PORT` so that
   * only it is exposed to the internet; `0` takes any free port.
   */
  @Default('3001')
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(65535)
  UNSUBSCRIBE_HTTP_PORT!: number;

  /**
   * The public address of that listener, as readers reach it (`https://mail.example.com`): links
   * are `<this>/unsubscribe/<token>`. Required with `UNSUBSCRIBE_TOKEN_KEY`; local: the listener
   * on loopback.
   */
  @ValidateIf(
    (env: UnsubscribeEnvironment) =>
      env.UNSUBSCRIBE_TOKEN_KEY !== undefined &&
      (env.MAILBRIDGE_MODE !== 'local' || env.UNSUBSCRIBE_BASE_URL !== undefined),
  )
  @IsUrl(httpUrl, { message: 'UNSUBSCRIBE_BASE_URL must be an http(s) URL' })
  UNSUBSCRIBE_BASE_URL?: string;

  /** Requests one client address may make to the public listener per minute, per replica. */
  @Default('30')
  @Type(() => Number)
  @IsInt()
  @Min(1)
  UNSUBSCRIBE_RATE_PER_MINUTE!: number;

  /**
   * Proxies in front of the listener that append to `X-Forwarded-For` (an ingress: 1). `0`: the
   * client is the connection's peer. With n, the client is the n-th address from the right, the
   * one the nearest trusted proxy saw; addresses further left are the client's own to forge.
   */
  @Default('0')
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(10)
  UNSUBSCRIBE_TRUSTED_PROXIES!: number;

  /** Result topic of the unsubscribes received on the public listener. */
  @Default('email.unsubscribed.v1')
  @IsString()
  @Matches(/^[a-zA-Z0-9._-]{1,249}$/)
  TOPIC_UNSUBSCRIBED!: string;
}
