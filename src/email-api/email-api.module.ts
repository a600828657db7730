import { Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { VendorClient } from './vendor.client';

@Module({
  providers: [
    {
      provide: VendorClient,
      inject: [AppConfig],
      useFactory: (c: AppConfig) => new VendorClient(c.vendor),
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
