import { Module } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { MetricsModule } from '../metrics/metrics.module';
import { OutboundModule } from '../outbound/outbound.module';
import type { RedisConnection } from '../redis/redis.connection';
import { REDIS_CONNECTION, RedisModule } from '../redis/redis.module';
import { MemoryUnsubscribeOutbox } from './memory-unsubscribe.outbox';
import { RedisUnsubscribeOutbox } from './redis-unsubscribe.outbox';
import { SuppressionList } from '../suppression/suppression-list';
import { SuppressionModule } from '../suppression/suppression.module';
import { SUPPRESSION_WRITER } from './suppression-writer';
import { UnsubscribeDrain } from './unsubscribe.drain';
import { UnsubscribeLinks } from './unsubscribe-links';
import { UnsubscribeListener } from './unsubscribe.listener';
import { UnsubscribeMetrics } from './unsubscribe.metrics';
import { UNSUBSCRIBE_OUTBOX, type UnsubscribeOutbox } from './unsubscribe.outbox';
import { UnsubscribeTokens } from './unsubscribe-token';
import { UNSUBSCRIBE_TOKENS, Unsubscriber } from './unsubscriber';

/**
 * One-click unsubscribe: the public listener, the tokens of its links, the outbox of
 * `email.unsubscribed.v1` and its drain. Off (no listener, no tokens) without
 * `UNSUBSCRIBE_TOKEN_KEY`.
 */
@Module({
  imports: [RedisModule, OutboundModule, SuppressionModule, MetricsModule],
  providers: [
    {
      provide: UNSUBSCRIBE_TOKENS,
      inject: [AppConfig],
      useFactory: ({ unsubscribe }: AppConfig): UnsubscribeTokens | undefined =>
        unsubscribe.enabled
          ? new UnsubscribeTokens(unsubscribe.tokenKeys, unsubscribe.tokenTtlSeconds)
          : undefined,
    },
    {
      provide: UNSUBSCRIBE_OUTBOX,
      inject: [REDIS_CONNECTION],
      useFactory: (redis: RedisConnection | undefined): UnsubscribeOutbox =>
        redis
          ? new RedisUnsubscribeOutbox(redis.client, redis.keyPrefix, () => redis.replicated())
          : new MemoryUnsubscribeOutbox(),
    },
    { provide: SUPPRESSION_WRITER, useExisting: SuppressionList },
    UnsubscribeDrain,
    UnsubscribeMetrics,
    Unsubscriber,
    UnsubscribeListener,
    UnsubscribeLinks,
  ],
  exports: [UnsubscribeLinks],
})
export class UnsubscribeModule {}
