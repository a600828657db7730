import { Module, type DynamicModule } from '@nestjs/common';
import { AppConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { DispatchService } from './dispatch/dispatch.service';
import { HealthController } from './health/health.controller';
import { ConsumerStatus } from './inbound/consumer-status';
import { InboundController } from './inbound/inbound.controller';
import { KafkaProvider } from './kafka/kafka.provider';
import { ResultPublisher } from './outbound/result.publisher';
import { VendorModule } from './vendor/vendor.module';

/** The whole service; `config` is passed in so tests can build it without touching process.env. */
@Module({})
export class AppModule {
  static forRoot(config?: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [ConfigModule.forRoot(config), VendorModule],
      controllers: [InboundController, HealthController],
      providers: [KafkaProvider, ResultPublisher, DispatchService, ConsumerStatus],
    };
  }
}
