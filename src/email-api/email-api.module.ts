import {
  Inject,
  Logger,
  Module,
  type DynamicModule,
  type OnApplicationShutdown,
  type OnModuleDestroy,
  type Type,
} from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { MetricsModule } from '../metrics/metrics.module';
import { MetricsService } from '../metrics/metrics.service';
import { REQUEST_BUDGET, type RequestBudget } from './request-budget';
import { VendorClient } from './vendor.client';

@Module({})
export class EmailApiModule implements OnModuleDestroy, OnApplicationShutdown {
  private readonly logger = new Logger('VendorClient');

  constructor(
    @Inject(VendorClient) private readonly client: VendorClient,
    @Inject(AppConfig) private readonly config: AppConfig,
  ) {}

  /**
   * The client, pacing its requests by the `REQUEST_BUDGET` that `budgetModule` exports: the
   * budget lives where replicas share state (`src/cluster/`), which this folder does not import.
   */
  static withBudget(budgetModule: Type): DynamicModule {
    return {
      module: EmailApiModule,
      imports: [MetricsModule, budgetModule],
      providers: [
        {
          provide: VendorClient,
          inject: [AppConfig, MetricsService, REQUEST_BUDGET],
          // The client reports each attempt's duration and each retry (`VendorObserver`).
          useFactory: (c: AppConfig, metrics: MetricsService, budget: RequestBudget) =>
            new VendorClient(c.vendor, { observer: metrics, budget }),
        },
      ],
      exports: [VendorClient],
    };
  }

  /**
   * The first step of a stop (Nest runs every module's destroy hook before anything else of it):
   * no vendor request is written and no retry starts from here on; requests already on the wire
   * get `SHUTDOWN_VENDOR_WAIT_MS` for their answer, then are aborted. What was not written goes
   * back to the next owner, so the rest of the stop only gives back and commits.
   */
  async onModuleDestroy(): Promise<void> {
    const waitMs = this.config.shutdownVendorWaitMs;
    const { onTheWire, aborted } = await this.client.stop(waitMs);
    this.logger.log(
      `vendor requests stopped: ${onTheWire} on the wire at the stop, ${aborted} of them aborted unanswered after ${waitMs} ms (ambiguous)`,
    );
  }

  /** After the consumer stopped (Nest closes transports before this hook). */
  async onApplicationShutdown(): Promise<void> {
    await this.client.close();
  }
}
