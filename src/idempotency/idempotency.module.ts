import { Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { REDIS_CONNECTION, RedisModule } from '../redis/redis.module';
import type { RedisConnection } from '../redis/redis.connection';
import { IDEMPOTENCY_STORE, type IdempotencyStore } from './idempotency.store';
import { InstanceLiveness } from './instance-liveness';
import { MemoryIdempotencyStore } from './memory-idempotency.store';
import { RedisIdempotencyStore } from './redis-idempotency.store';

/**
 * The store of claims and outcomes (Redis, on `RedisModule`'s connection, or memory locally),
 * and this instance's heartbeat.
 */
@Module({
  imports: [RedisModule],
  providers: [
    {
      provide: IDEMPOTENCY_STORE,
      inject: [AppConfig, REDIS_CONNECTION],
      useFactory: (
        { idempotency }: AppConfig,
        redis: RedisConnection | undefined,
      ): IdempotencyStore =>
        redis
          ? new RedisIdempotencyStore(redis, idempotency.ttlSeconds, idempotency.keyPrefix)
          : new MemoryIdempotencyStore(idempotency.ttlSeconds),
    },
    InstanceLiveness,
  ],
  exports: [IDEMPOTENCY_STORE, InstanceLiveness],
})
export class IdempotencyModule implements OnApplicationShutdown {
  constructor(@Inject(IDEMPOTENCY_STORE) private readonly store: IdempotencyStore) {}

  async onApplicationShutdown(): Promise<void> {
    await this.store.close();
  }
}
