import { Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { MetricsModule } from '../metrics/metrics.module';
import { MetricsService } from '../metrics/metrics.service';
import { VendorClient } from './vendor.client';

@Module({
  imports: [MetricsModule],
  providers: [
    {
      provide: VendorClient,
      inject: [AppConfig, MetricsService],
      // The client reports each attempt's duration and each retry (`VendorObserver`).
      useFactory: (c: AppConfig, metrics: MetricsService) =>
        new VendorClient(c.vendor, { observer: metrics }),
    },
  ],
  exports: [VendorClient],
})
export class EmailApiModule implements OnApplicationShutdown {
  constructor(@Inject(VendorClient) private readonly client: VendorClient) {}

  /** After the consumer stopped (Nest closes transports before this hook). */
  async onApplicationShutdown(): Promise<void> {
    await this.client.close();
  }
}
