import { Module, type DynamicModule } from '@nestjs/common';
import { AppConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { DispatchModule } from './dispatch/dispatch.module';
import { VendorGate } from './dispatch/vendor.gate';
import { HealthController } from './health/health.controller';
import { LivenessCheck } from './health/liveness.check';
import { ConsumerStatus } from './inbound/consumer-status';
import { InboundController } from './inbound/inbound.controller';
import { KafkaModule } from './kafka/kafka.module';
import { MetricsModule } from './metrics/metrics.module';
import { VendorModule } from './vendor/vendor.module';

/** The whole service; `config` is passed in so tests can build it without the environment. */
@Module({})
export class AppModule {
  static forRoot(config?: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        MetricsModule,
        VendorModule,
        KafkaModule,
        DispatchModule,
      ],
      controllers: [InboundController, HealthController],
      providers: [
        ConsumerStatus,
        {
          provide: LivenessCheck,
          inject: [ConsumerStatus, VendorGate, AppConfig],
          useFactory: (status: ConsumerStatus, gate: VendorGate, config: AppConfig) =>
            new LivenessCheck(status, gate, config.consumer.livenessStallMs),
        },
      ],
    };
  }
}
