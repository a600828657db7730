import { Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { MetricsService } from '../metrics/metrics.service';
import { ResultPublisher } from '../outbound/result.publisher';
import { TemplatesModule } from '../templates/templates.module';
import { VendorClient } from '../vendor/vendor.client';
import { ActionRunner } from './action.runner';
import { CampaignBatcher } from './campaign.batcher';
import { ContactListBatcher } from './contact-list.batcher';
import { DispatchService } from './dispatch.service';
import { IDEMPOTENCY_STORE, type IdempotencyStore } from './idempotency/idempotency.store';
import { MemoryIdempotencyStore } from './idempotency/memory-idempotency.store';
import { InstanceLiveness } from './idempotency/instance-liveness';
import { RedisIdempotencyStore } from './idempotency/redis-idempotency.store';
import { campaignSenderOf } from './vendor-adapters';
import { VendorDispatcher } from './vendor.dispatcher';
import { VendorGate } from './vendor.gate';

@Module({
  imports: [TemplatesModule],
  providers: [
    {
      provide: IDEMPOTENCY_STORE,
      inject: [AppConfig],
      useFactory: ({ idempotency }: AppConfig): IdempotencyStore => {
        if (idempotency.store === 'memory')
          return new MemoryIdempotencyStore(idempotency.ttlSeconds);
        const store = new RedisIdempotencyStore(
          idempotency.redisUrl,
          idempotency.ttlSeconds,
          idempotency.keyPrefix,
        );
        // Not awaited: a Redis that is down at start must not keep the health endpoints from
        // answering. Commands wait for the connection; readiness reports it.
        store.connect().catch(() => undefined);
        return store;
      },
    },
    {
      provide: CampaignBatcher,
      inject: [VendorClient, AppConfig, MetricsService, IDEMPOTENCY_STORE],
      useFactory: (
        vendor: VendorClient,
        { batching }: AppConfig,
        metrics: MetricsService,
        store: IdempotencyStore,
      ) =>
        new CampaignBatcher(
          campaignSenderOf(vendor, metrics),
          {
            maxRecipients: batching.maxRecipients,
            maxBytes: batching.maxBytes,
            lingerMs: batching.lingerMs,
          },
          store,
        ),
    },
    {
      provide: ContactListBatcher,
      inject: [VendorClient, AppConfig, IDEMPOTENCY_STORE],
      useFactory: (vendor: VendorClient, { batching }: AppConfig, store: IdempotencyStore) =>
        new ContactListBatcher(
          vendor,
          {
            maxMembers: batching.contactListMaxMembers,
            lingerMs: batching.lingerMs,
            namePattern: batching.contactListNamePattern,
            clockSkewMs: batching.contactListClockSkewMs,
          },
          store,
        ),
    },
    InstanceLiveness,
    VendorGate,
    VendorDispatcher,
    ActionRunner,
    DispatchService,
    ResultPublisher,
  ],
  exports: [DispatchService, VendorGate, ResultPublisher, IDEMPOTENCY_STORE],
})
export class DispatchModule implements OnApplicationShutdown {
  constructor(
    @Inject(IDEMPOTENCY_STORE) private readonly store: IdempotencyStore,
    private readonly gate: VendorGate,
    @Inject(CampaignBatcher) private readonly campaigns: CampaignBatcher,
    @Inject(ContactListBatcher) private readonly contactLists: ContactListBatcher,
  ) {}

  /** Sends whatever is still gathering: called when consumption stops. */
  async drain(): Promise<void> {
    await Promise.all([this.campaigns.drain(), this.contactLists.drain()]);
  }

  async onApplicationShutdown(): Promise<void> {
    this.gate.close();
    await this.store.close();
  }
}
