import type { MetricsService } from '../metrics/metrics.service';
import type { VendorClient } from '../email-api/vendor.client';
import type { CampaignSender } from './campaign.batcher';

/** The vendor client's campaign send, with each request's recipient count observed. */
export function campaignSenderOf(vendor: VendorClient, metrics: MetricsService): CampaignSender {
  return {
    async sendCampaign(request, hooks, recipientJson) {
      const chunks = await vendor.sendCampaign(request, hooks, recipientJson);
      for (const chunk of chunks) {
        if (chunk.ok) metrics.recipientsPerRequest.observe(chunk.recipientIndexes.length);
      }
      return chunks;
    },
  };
}
