import { Module } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { CLOCK, systemClock, type Clock } from '../delivery/clock';
import { DeliveryModule } from '../delivery/delivery.module';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { MetricsModule } from '../metrics/metrics.module';
import { OutboundModule } from '../outbound/outbound.module';
import type { RedisConnection } from '../redis/redis.connection';
import { REDIS_CONNECTION, RedisModule } from '../redis/redis.module';
import { ContactListWindows } from './contact-list.windows';
import { MemoryWindowStore } from './memory-window.store';
import { RedisWindowStore } from './redis-window.store';
import { SuppressionModule } from '../suppression/suppression.module';
import { WindowCloser } from './window.closer';
import { WindowPlacement } from './window.placement';
import { WINDOW_STORE, type WindowStore, type WindowStoreOptions } from './window.store';

/**
 * Everything about contact-list windows: the store every replica shares (Redis, or memory for one
 * process), the naming of a window's lists, the placement of an order's member, and the closer
 * that creates each list once it is due and answers its orders.
 */
@Module({
  imports: [
    IdempotencyModule,
    MetricsModule,
    DeliveryModule,
    OutboundModule,
    RedisModule,
    SuppressionModule,
  ],
  providers: [
    { provide: CLOCK, useValue: systemClock },
    {
      provide: WINDOW_STORE,
      inject: [AppConfig, REDIS_CONNECTION, CLOCK],
      useFactory: (
        { batching, idempotency }: AppConfig,
        shared: RedisConnection | undefined,
        clock: Clock,
      ): WindowStore => {
        const options: WindowStoreOptions = {
          lingerMs: batching.lingerMs,
          maxMembers: batching.contactListMaxMembers,
          latePolicy: batching.contactListLatePolicy,
          retentionSeconds: idempotency.ttlSeconds,
        };
        const now = () => clock.now();
        return shared
          ? new RedisWindowStore(shared.client, shared.keyPrefix, options, now, () =>
              shared.replicated(),
            )
          : new MemoryWindowStore(options, now);
      },
    },
    {
      provide: ContactListWindows,
      inject: [AppConfig, CLOCK],
      useFactory: ({ batching }: AppConfig, clock: Clock) =>
        new ContactListWindows(
          {
            namePattern: batching.contactListNamePattern,
            clockSkewMs: batching.contactListClockSkewMs,
          },
          () => clock.now(),
        ),
    },
    WindowPlacement,
    WindowCloser,
  ],
  exports: [WindowPlacement, WINDOW_STORE],
})
export class WindowsModule {}
