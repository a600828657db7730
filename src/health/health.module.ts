import { Module } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { DeliveryModule } from '../delivery/delivery.module';
import { VendorGate } from '../delivery/vendor.gate';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { ConsumerStatus } from '../inbound/consumer-status';
import { InboundModule } from '../inbound/inbound.module';
import { KafkaModule } from '../kafka/kafka.module';
import { HealthController } from './health.controller';
import { LivenessCheck } from './liveness.check';

/** `/health/live` and `/health/ready`: what the consumer, the vendor gate and the dependencies say. */
@Module({
  imports: [InboundModule, DeliveryModule, IdempotencyModule, KafkaModule],
  controllers: [HealthController],
  providers: [
    {
      provide: LivenessCheck,
      inject: [ConsumerStatus, VendorGate, AppConfig],
      useFactory: (status: ConsumerStatus, gate: VendorGate, config: AppConfig) =>
        new LivenessCheck(status, gate, config.consumer.livenessStallMs),
    },
  ],
})
export class HealthModule {}
