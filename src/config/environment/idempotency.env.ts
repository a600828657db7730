import { Type } from 'class-transformer';
import { IsIn, IsInt, IsUrl, Matches, Min } from 'class-validator';
import { Default } from '../default.decorator';
import { BatchingEnvironment } from './batching.env';

export const IDEMPOTENCY_STORES = ['memory', 'redis'] as const;
export type IdempotencyStoreKind = (typeof IDEMPOTENCY_STORES)[number];

export const AMBIGUOUS_SEND_POLICIES = ['resend', 'fail'] as const;
export type AmbiguousSendPolicy = (typeof AMBIGUOUS_SEND_POLICIES)[number];

/** Sending each event once (`IDEMPOTENCY_*`, `REDIS_URL`), and a send whose fate is unknown. */
export class IdempotencyEnvironment extends BatchingEnvironment {
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
}
