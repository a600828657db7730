import { Module } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { DeliveryModule } from '../delivery/delivery.module';
import { VendorGate } from '../delivery/vendor.gate';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { IDEMPOTENCY_STORE, type IdempotencyStore } from '../idempotency/idempotency.store';
import { ConsumerStatus } from '../inbound/consumer-status';
import { InboundModule } from '../inbound/inbound.module';
import { BrokerProbe } from '../kafka/broker-probe';
import { KafkaModule } from '../kafka/kafka.module';
import { DependencyStatus } from './dependency-status';
import { HealthController } from './health.controller';
import { LivenessCheck } from './liveness.check';

/** `/health/live` and `/health/ready`: what the consumer, the vendor gate and the dependencies say. */
@Module({
  imports: [InboundModule, DeliveryModule, IdempotencyModule, KafkaModule],
  controllers: [HealthController],
  providers: [
    {
      // Read by readiness, liveness, and the consumer's stop (`app.ts`).
      provide: DependencyStatus,
      inject: [BrokerProbe, IDEMPOTENCY_STORE],
      useFactory: (broker: BrokerProbe, store: IdempotencyStore) =>
        new DependencyStatus([
          { name: `the Kafka broker (${broker.brokers})`, problem: () => broker.unreachable },
          { name: 'the idempotency store (Redis)', problem: () => storeProblem(store) },
        ]),
    },
    {
      provide: LivenessCheck,
      inject: [ConsumerStatus, VendorGate, AppConfig],
      useFactory: (status: ConsumerStatus, gate: VendorGate, config: AppConfig) =>
        new LivenessCheck(status, gate, config.consumer.livenessStallMs),
    },
  ],
})
export class HealthModule {}

function storeProblem(store: IdempotencyStore): string | undefined {
  if (store.connected) return undefined;
  return `${store.connectionProblem ?? 'not connected'}; nothing is sent without it`;
}
