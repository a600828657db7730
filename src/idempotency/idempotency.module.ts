import { Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { IDEMPOTENCY_STORE, type IdempotencyStore } from './idempotency.store';
import { InstanceLiveness } from './instance-liveness';
import { MemoryIdempotencyStore } from './memory-idempotency.store';
import { RedisIdempotencyStore } from './redis-idempotency.store';
import { SHARED_REDIS, type SharedRedis } from './shared-redis';

/**
 * The store of claims and outcomes (Redis, or memory locally), the Redis connection it shares
 * with `src/cluster/` and `src/windows/`, and this instance's heartbeat.
 */
@Module({
  providers: [
    {
      provide: IDEMPOTENCY_STORE,
      inject: [AppConfig],
      useFactory: ({ idempotency }: AppConfig): IdempotencyStore => {
        if (idempotency.store === 'memory')
          return new MemoryIdempotencyStore(idempotency.ttlSeconds);
        const store = new RedisIdempotencyStore(
          idempotency.redisUrl,
          idempotency.ttlSeconds,
          idempotency.keyPrefix,
        );
        // Not awaited: a Redis that is down at start must not keep the health endpoints from
        // answering. Commands wait for the connection; readiness reports it.
        store.connect().catch(() => undefined);
        return store;
      },
    },
    {
      provide: SHARED_REDIS,
      inject: [IDEMPOTENCY_STORE, AppConfig],
      useFactory: (store: IdempotencyStore, { idempotency }: AppConfig): SharedRedis | undefined =>
        store instanceof RedisIdempotencyStore
          ? { redis: store.client, keyPrefix: idempotency.keyPrefix }
          : undefined,
    },
    InstanceLiveness,
  ],
  exports: [IDEMPOTENCY_STORE, SHARED_REDIS, InstanceLiveness],
})
export class IdempotencyModule implements OnApplicationShutdown {
  constructor(@Inject(IDEMPOTENCY_STORE) private readonly store: IdempotencyStore) {}

  async onApplicationShutdown(): Promise<void> {
    await this.store.close();
  }
}
