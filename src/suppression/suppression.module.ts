import { Module } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import type { RedisConnection } from '../redis/redis.connection';
import { REDIS_CONNECTION, RedisModule } from '../redis/redis.module';
import { AddressKeyer } from './address-key';
import { MemorySuppressionStore } from './memory-suppression.store';
import { RedisSuppressionStore } from './redis-suppression.store';
import { SuppressionList } from './suppression-list';
import { SUPPRESSION_STORE, type SuppressionStore } from './suppression.store';

/**
 * The suppression list (Redis, on `RedisModule`'s connection, or memory locally) and the keyed
 * hash it keeps addresses as.
 */
@Module({
  imports: [RedisModule],
  providers: [
    {
      provide: SUPPRESSION_STORE,
      inject: [REDIS_CONNECTION],
      useFactory: (redis: RedisConnection | undefined): SuppressionStore =>
        redis
          ? new RedisSuppressionStore(redis.client, redis.keyPrefix, () => redis.replicated())
          : new MemorySuppressionStore(),
    },
    {
      provide: AddressKeyer,
      inject: [AppConfig],
      useFactory: ({ suppression }: AppConfig) => new AddressKeyer(suppression.hashKey),
    },
    SuppressionList,
  ],
  exports: [SuppressionList],
})
export class SuppressionModule {}
