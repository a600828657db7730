import type { MetricsService } from '../metrics/metrics.service';
import type { VendorClient } from '../vendor/vendor.client';
import { VendorError } from '../vendor/vendor.errors';
import type { CampaignChunkResult, CampaignSender } from './campaign.batcher';

/** The batcher's view of the vendor client's campaign send, counted for the metrics. */
export function campaignSenderOf(vendor: VendorClient, metrics: MetricsService): CampaignSender {
  return {
    async sendCampaign(request): Promise<CampaignChunkResult[]> {
      const recipientIndexes = request.recipients.to.map((_, i) => i);
      metrics.recipientsPerRequest.observe(recipientIndexes.length);
      try {
        const response = await vendor.sendCampaign(request);
        return [
          { ok: true, requestId: response.requestId, message: response.message, recipientIndexes },
        ];
      } catch (error) {
        if (!(error instanceof VendorError)) throw error;
        return [{ ok: false, error, recipientIndexes }];
      }
    },
  };
}
