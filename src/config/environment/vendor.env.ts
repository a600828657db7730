import { Transform, Type } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsString,
  IsUrl,
  Matches,
  Max,
  Min,
} from 'class-validator';
import { Default, LocalDefault, ReadableFromFile } from '../default.decorator';
import { SANDBOX_API_KEY, SANDBOX_PORT, SANDBOX_RELAY_ACCESS_TOKEN } from '../sandbox-defaults';
import { VENDOR_RATE_FORM } from '../vendor-rate';
import { TopicsEnvironment } from './topics.env';
import { bool, httpUrl } from './values';

export const TOKEN_FORMS = ['bare', 'token-prefix'] as const;
export type TokenForm = (typeof TOKEN_FORMS)[number];

/** The email vendor (`VENDOR_*`): its addresses and keys, timeouts, retries, limits and pace. */
export class VendorEnvironment extends TopicsEnvironment {
  /** Base URL of the vendor's campaign send (`POST …/email/campaign`); local: the sandbox. */
  @Default('https://api.tinyemail.com/relay/v1', {
    local: `http://127.0.0.1:${SANDBOX_PORT}/relay/v1`,
  })
  @IsUrl(httpUrl, { message: 'VENDOR_RELAY_BASE_URL must be an http(s) URL' })
  VENDOR_RELAY_BASE_URL!: string;

  /** Base URL of the vendor's contact-list creation; local: the sandbox. */
  @Default('https://api.tinyemail.com/v1', { local: `http://127.0.0.1:${SANDBOX_PORT}/v1` })
  @IsUrl(httpUrl, { message: 'VENDOR_BASE_URL must be an http(s) URL' })
  VENDOR_BASE_URL!: string;

  /** Path of contact-list creation under `VENDOR_BASE_URL` (newer vendor docs say `/audiences`). */
  @Default('/contacts')
  @Matches(/^\/[A-Za-z0-9/_-]*$/, {
    message: 'VENDOR_CONTACTS_PATH must be a path starting with /',
  })
  VENDOR_CONTACTS_PATH!: string;

  /** Key sent as `X-RELAY-ACCESS-TOKEN` with campaign sends; local: the sandbox's key. */
  @LocalDefault(SANDBOX_RELAY_ACCESS_TOKEN)
  @ReadableFromFile()
  @IsNotEmpty({
    message: 'VENDOR_RELAY_ACCESS_TOKEN (or VENDOR_RELAY_ACCESS_TOKEN_FILE) is required',
  })
  VENDOR_RELAY_ACCESS_TOKEN!: string;

  /** `bare` sends the relay key as it is; `token-prefix` sends `TOKEN <key>`. */
  @Default('bare')
  @IsIn(TOKEN_FORMS)
  VENDOR_RELAY_TOKEN_FORM!: TokenForm;

  /** Whether the vendor HTML-escapes the values it merges into a body (if not, templates do). */
  @Default('true')
  @Transform(bool)
  @IsBoolean()
  VENDOR_MERGE_ESCAPES_HTML!: boolean;

  /** Key sent as `X-API-KEY` with contact-list requests; local: the sandbox's key. */
  @LocalDefault(SANDBOX_API_KEY)
  @ReadableFromFile()
  @IsNotEmpty({ message: 'VENDOR_API_KEY (or VENDOR_API_KEY_FILE) is required' })
  VENDOR_API_KEY!: string;

  /** Comma-separated hosts the vendor URLs may reach over plain http; loopback always may. */
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

  /** TCP and TLS connect timeout of vendor requests. */
  @Default('5000')
  @Type(() => Number)
  @IsInt()
  @Min(1)
  VENDOR_CONNECT_TIMEOUT_MS!: number;

  /** How long a vendor request waits for the response's headers. */
  @Default('15000')
  @Type(() => Number)
  @IsInt()
  @Min(1)
  VENDOR_HEADERS_TIMEOUT_MS!: number;

  /** The longest pause allowed between chunks of a vendor response's body. */
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

  /** Base of the backoff between retries (exponential, with full jitter). */
  @Default('250')
  @Type(() => Number)
  @IsInt()
  @Min(1)
  VENDOR_RETRY_BASE_MS!: number;

  /** The longest the backoff between retries grows to. */
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

  /** Recipients per campaign request; the client splits longer recipient lists. */
  @Default('1000')
  @Type(() => Number)
  @IsInt()
  @Min(1)
  VENDOR_MAX_RECIPIENTS_PER_REQUEST!: number;

  /** Body size of a campaign request; the client splits larger campaigns. */
  @Default('5242880')
  @Type(() => Number)
  @IsInt()
  @Min(1024)
  VENDOR_MAX_BODY_BYTES!: number;

  /** Keep-alive connections per vendor origin. */
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

  /**
   * The same for campaign sends, per relay key; `off` by default, as the vendor documents no limit
   * (a 429's `Retry-After` still holds every replica back).
   */
  @Default('off')
  @Matches(VENDOR_RATE_FORM, {
    message: 'VENDOR_RELAY_RATE must be off or <count>/<s|min|h>, such as 10/s',
  })
  VENDOR_RELAY_RATE!: string;

  /** Campaign sends that may go at once after a quiet spell, as `VENDOR_CONTACTS_BURST`. */
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
}
