import { Module } from '@nestjs/common';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { MetricsModule } from '../metrics/metrics.module';

/**
 * What the replicas of one deployment share through Redis (`SHARED_REDIS`), so that the vendor
 * sees one well-behaved client however many replicas run: the request budget per endpoint and
 * key, the gate that pauses them all, and the contact-list windows. On the in-memory store
 * (one process) each keeps the same rules in memory.
 */
@Module({
  imports: [IdempotencyModule, MetricsModule],
  providers: [],
  exports: [],
})
export class ClusterModule {}
