import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, IsUrl, Matches, Max, Min } from 'class-validator';
import { Default, ReadableFromFile } from '../default.decorator';
import { BatchingEnvironment } from './batching.env';

export const IDEMPOTENCY_STORES = ['memory', 'redis'] as const;
export type IdempotencyStoreKind = (typeof IDEMPOTENCY_STORES)[number];

export const REPLICA_SHORTFALL_POLICIES = ['wait', 'proceed'] as const;
export type ReplicaShortfallPolicy = (typeof REPLICA_SHORTFALL_POLICIES)[number];

export const AMBIGUOUS_SEND_POLICIES = ['resend', 'fail'] as const;
export type AmbiguousSendPolicy = (typeof AMBIGUOUS_SEND_POLICIES)[number];

/** Sending each event once (`IDEMPOTENCY_*`, `REDIS_*`), and a send whose fate is unknown. */
export class IdempotencyEnvironment extends BatchingEnvironment {
  /**
   * Where sent actions are remembered: `redis`, shared by the replicas, or `memory`, one process's
   * own.
   */
  @Default('redis', { local: 'memory' })
  @IsIn(IDEMPOTENCY_STORES)
  IDEMPOTENCY_STORE!: IdempotencyStoreKind;

  /**
   * Redis of the idempotency store, the shared vendor budget and the contact-list windows;
   * `rediss://` for TLS.
   */
  @Default('redis://127.0.0.1:6379')
  @IsUrl(
    { require_tld: false, require_protocol: true, protocols: ['redis', 'rediss'] },
    { message: 'REDIS_URL must be a redis:// or rediss:// URL' },
  )
  REDIS_URL!: string;

  /**
   * The Sentinels of a Redis primary with replicas: the service asks them where the primary is,
   * and again after a failover. `REDIS_URL` then gives the scheme, user, password and database;
   * not its host.
   */
  @IsOptional()
  @Matches(/^[^\s,:]+:\d{1,5}(,[^\s,:]+:\d{1,5})*$/, {
    message: 'REDIS_SENTINELS must be host:port[,host:port…]',
  })
  REDIS_SENTINELS?: string;

  /**
   * Nodes of a Redis Cluster to start from (any few; the client learns the rest and every move of
   * a slot). `REDIS_URL` then gives the scheme (`rediss://` for TLS), user and password; not its
   * host. Not with `REDIS_SENTINELS`.
   */
  @IsOptional()
  @Matches(/^[^\s,:]+:\d{1,5}(,[^\s,:]+:\d{1,5})*$/, {
    message: 'REDIS_CLUSTER_NODES must be host:port[,host:port…]',
  })
  REDIS_CLUSTER_NODES?: string;

  /** The name the Sentinels know the primary by (`sentinel monitor <name> …`). */
  @Default('mymaster')
  @Matches(/^[\w.-]{1,100}$/, { message: 'REDIS_SENTINEL_NAME may hold letters, digits and _ . -' })
  REDIS_SENTINEL_NAME!: string;

  /** The Redis nodes' password, instead of one in `REDIS_URL` (usually from `REDIS_PASSWORD_FILE`). */
  @ReadableFromFile()
  @IsOptional()
  @IsString()
  REDIS_PASSWORD?: string;

  /** The Sentinels' own password (`requirepass` in sentinel.conf), when they ask for one. */
  @ReadableFromFile()
  @IsOptional()
  @IsString()
  REDIS_SENTINEL_PASSWORD?: string;

  /**
   * Replicas that must hold a claim's `sending` mark before its request is written, and an outcome
   * before its result is published (Redis' WAIT), so that a failover cannot lose them. Unset: 1
   * with `REDIS_SENTINELS` or `REDIS_CLUSTER_NODES` (a primary has a replica there), 0 without.
   * On a cluster every primary must have them.
   */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  REDIS_WAIT_REPLICAS?: number;

  /** How long one WAIT for the replicas may take; below the 3 s after which a PING counts as a hang. */
  @Default('500')
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(2000)
  REDIS_WAIT_TIMEOUT_MS!: number;

  /**
   * When fewer replicas acknowledge in time: `wait` (sends wait, readiness says why) or `proceed`
   * (send anyway, logged: a failover then may lose the write and send that email twice).
   */
  @Default('wait')
  @IsIn(REPLICA_SHORTFALL_POLICIES)
  REDIS_REPLICA_SHORTFALL!: ReplicaShortfallPolicy;

  /** Prefix of every key the service writes to Redis. */
  @Default('mailbridge:idem:')
  @Matches(/^[\w:.-]{0,100}$/, {
    message: 'IDEMPOTENCY_KEY_PREFIX may hold letters, digits and _ : . -',
  })
  IDEMPOTENCY_KEY_PREFIX!: string;

  /** How long an outcome is remembered; a redelivery later than this sends again. */
  @Default('604800')
  @Type(() => Number)
  @IsInt()
  @Min(60)
  IDEMPOTENCY_TTL_SECONDS!: number;

  /** How long an unfinished claim blocks other instances; renewed while its owner works. */
  @Default('120000')
  @Type(() => Number)
  @IsInt()
  @Min(1000)
  IDEMPOTENCY_CLAIM_TTL_MS!: number;

  /** How long an instance counts as alive after its last heartbeat (sent every quarter of it). */
  @Default('10000')
  @Type(() => Number)
  @IsInt()
  @Min(1000)
  IDEMPOTENCY_INSTANCE_TTL_MS!: number;

  /**
   * A send that may already have reached the vendor: `resend` (at-least-once) or `fail` (an
   * `AMBIGUOUS_SEND` result).
   */
  @Default('resend')
  @IsIn(AMBIGUOUS_SEND_POLICIES)
  AMBIGUOUS_SEND_POLICY!: AmbiguousSendPolicy;
}
