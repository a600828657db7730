import type { Redis } from 'ioredis';

/**
 * The Redis connection every replica shares state through (claims and outcomes, and what
 * `src/cluster/` and `src/windows/` keep), with the namespace its keys go under; `undefined`
 * when the service runs on the in-memory store (one process, nothing to share). One connection,
 * watched for hangs by the idempotency store, so readiness speaks for everything that uses it.
 */
export interface SharedRedis {
  redis: Redis;
  /** `IDEMPOTENCY_KEY_PREFIX`: every key goes under it. */
  keyPrefix: string;
}

export const SHARED_REDIS = Symbol('SHARED_REDIS');
