import { Module, type DynamicModule } from '@nestjs/common';
import { AsyncApiModule } from './asyncapi/asyncapi.module';
import type { AppConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { HealthModule } from './health/health.module';
import { InboundModule } from './inbound/inbound.module';
import { MetricsModule } from './metrics/metrics.module';
import { TracingModule } from './tracing/tracing.module';
import { UnsubscribeModule } from './unsubscribe/unsubscribe.module';

/**
 * The whole service: the inbound edge (which pulls in dispatch, delivery, the vendor's API,
 * idempotency and outbound), health, metrics, the AsyncAPI document and the public one-click unsubscribe listener. `config` is passed in so tests can build it
 * without the environment.
 */
@Module({})
export class AppModule {
  static forRoot(config?: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        TracingModule,
        InboundModule,
        HealthModule,
        MetricsModule,
        AsyncApiModule,
        UnsubscribeModule,
      ],
    };
  }
}
