import { Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { REQUEST_BUDGET } from '../email-api/request-budget';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { InstanceLiveness } from '../idempotency/instance-liveness';
import { MetricsModule } from '../metrics/metrics.module';
import type { RedisConnection } from '../redis/redis.connection';
import { REDIS_CONNECTION, RedisModule } from '../redis/redis.module';
import { GATE_CHANNEL, LocalGateChannel, type GateChannel } from './gate-channel';
import { RedisGateChannel } from './redis-gate-channel';
import { requestBudgetProvider } from './request-budget.provider';
import type { SharedRequestBudget } from './shared-request-budget';

/**
 * What the replicas of one deployment share through Redis (`REDIS_CONNECTION`), so that the vendor
 * sees one well-behaved client however many replicas run: the request budget per endpoint and
 * key, and the gate that pauses them all (the contact-list windows are `src/windows/`'s). On the
 * in-memory store (one process) each keeps the same rules in memory.
 */
@Module({
  imports: [IdempotencyModule, MetricsModule, RedisModule],
  providers: [
    {
      provide: GATE_CHANNEL,
      inject: [REDIS_CONNECTION, InstanceLiveness],
      useFactory: (redis: RedisConnection | undefined, instance: InstanceLiveness): GateChannel => {
        if (!redis) return new LocalGateChannel();
        const channel = new RedisGateChannel(redis.client, redis.keyPrefix, instance.id);
        channel.start();
        return channel;
      },
    },
    requestBudgetProvider,
  ],
  exports: [GATE_CHANNEL, REQUEST_BUDGET],
})
export class ClusterModule implements OnApplicationShutdown {
  constructor(
    @Inject(GATE_CHANNEL) private readonly gateChannel: GateChannel,
    @Inject(REQUEST_BUDGET) private readonly budget: SharedRequestBudget,
  ) {}

  /** The vendor client's stop ends the budget's waits first; this covers a client never stopped. */
  async onApplicationShutdown(): Promise<void> {
    this.budget.close();
    await this.gateChannel.stop();
  }
}
