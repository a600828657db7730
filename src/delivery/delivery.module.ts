import { Module, type OnModuleDestroy } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { ClusterModule } from '../cluster/cluster.module';
import { EmailApiModule } from '../email-api/email-api.module';
import { VendorClient } from '../email-api/vendor.client';
import { IDEMPOTENCY_STORE, type IdempotencyStore } from '../idempotency/idempotency.store';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { MetricsModule } from '../metrics/metrics.module';
import { MetricsService } from '../metrics/metrics.service';
import { CampaignBatcher } from './campaign.batcher';
import { ContactListBatcher } from './contact-list.batcher';
import { ConsumerBacklog } from './consumer-backlog';
import { CampaignDelivery } from './campaign.delivery';
import { ContactListDelivery } from './contact-list.delivery';
import { CLOCK, systemClock, type Clock } from './clock';
import { campaignSenderOf } from './vendor-adapters';
import { Tracing } from '../tracing/tracing';
import { VendorGate } from './vendor.gate';
import { VendorTrouble } from './vendor-trouble';
import { SuppressionList } from '../suppression/suppression-list';
import { SuppressionModule } from '../suppression/suppression.module';

/**
 * Carries claimed actions to the vendor and back to their outcomes: campaigns through their
 * batcher (`CampaignDelivery`), contact lists one request each (`ContactListDelivery`), and the
 * vendor-trouble policy both follow (`VendorTrouble`: the gate, its pauses, the failure codes).
 */
@Module({
  imports: [
    EmailApiModule.withBudget(ClusterModule),
    IdempotencyModule,
    MetricsModule,
    ClusterModule,
    SuppressionModule,
  ],
  providers: [
    {
      provide: CampaignBatcher,
      inject: [
        VendorClient,
        AppConfig,
        MetricsService,
        IDEMPOTENCY_STORE,
        Tracing,
        ConsumerBacklog,
        CLOCK,
        SuppressionList,
      ],
      useFactory: (
        vendor: VendorClient,
        { batching, consumer }: AppConfig,
        metrics: MetricsService,
        store: IdempotencyStore,
        tracing: Tracing,
        backlog: ConsumerBacklog,
        clock: Clock,
        suppression: SuppressionList,
      ) =>
        new CampaignBatcher(
          campaignSenderOf(vendor, metrics),
          {
            maxRecipients: batching.maxRecipients,
            maxBytes: batching.maxBytes,
            lingerMs: batching.lingerMs,
            maxLingerMs: batching.maxLingerMs,
            waiting: () => backlog.waiting(),
            windowRecords: consumer.maxInFlight,
          },
          { ledger: store, suppression, tracing, clock },
        ),
    },
    {
      provide: ContactListBatcher,
      inject: [VendorClient, Tracing],
      useFactory: (vendor: VendorClient, tracing: Tracing) =>
        new ContactListBatcher(vendor, tracing),
    },
    { provide: CLOCK, useValue: systemClock },
    ConsumerBacklog,
    VendorGate,
    VendorTrouble,
    CampaignDelivery,
    ContactListDelivery,
  ],
  exports: [CampaignDelivery, ContactListDelivery, VendorGate, ConsumerBacklog],
})
export class DeliveryModule implements OnModuleDestroy {
  constructor(
    private readonly gate: VendorGate,
    private readonly campaigns: CampaignBatcher,
    metrics: MetricsService,
  ) {
    metrics.watchGate(() => gate.state);
    gate.onClose((cause, origin) => metrics.vendorGateCloses.inc({ cause, origin }));
  }

  /**
   * A stop gives work back instead of doing it: actions paused at the gate, and recipients still
   * gathering for a request, end now (nothing of theirs was written), so their claims go back
   * and their records stay uncommitted for the next owner. Before the vendor client's own stop
   * (Nest runs this module's destroy hook before that of the module it imports).
   */
  onModuleDestroy(): void {
    this.gate.close();
    this.campaigns.stop();
  }
}
