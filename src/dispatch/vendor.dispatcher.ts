import { Inject, Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { MetricsService } from '../metrics/metrics.service';
import type { CampaignAction, ContactListAction, TemplateAction } from '../templates/template';
import { VendorAuthError, VendorError } from '../vendor/vendor.errors';
import type { CampaignRecipient } from '../vendor/vendor.types';
import { CampaignBatcher } from './campaign.batcher';
import { ContactListBatcher } from './contact-list.batcher';
import type { StoredOutcome } from './idempotency/idempotency.store';
import { VendorGate } from './vendor.gate';

/**
 * Carries one template action to the vendor and back to an outcome. Vendor trouble costs time,
 * not data: auth refusals and failures that outlived the client's retries close the gate and
 * the action tries again when it reopens; only permanent refusals (other 4xx, invalid requests)
 * become `failed` outcomes.
 */
@Injectable()
export class VendorDispatcher {
  constructor(
    private readonly config: AppConfig,
    @Inject(CampaignBatcher) private readonly campaigns: CampaignBatcher,
    @Inject(ContactListBatcher) private readonly contactLists: ContactListBatcher,
    private readonly gate: VendorGate,
    private readonly metrics: MetricsService,
  ) {}

  execute(action: TemplateAction): Promise<StoredOutcome> {
    return action.kind === 'campaign' ? this.campaign(action) : this.contactList(action);
  }

  private async campaign(action: CampaignAction): Promise<StoredOutcome> {
    const requestIds = new Set<string>();
    let message = '';
    let batchRecipientCount = 0;
    let pending: CampaignRecipient[] = action.recipients;
    for (;;) {
      await this.gate.waitOpen();
      let delivery;
      try {
        delivery = await this.campaigns.add(action.batchKey, action.content, pending);
      } catch (error) {
        const permanent = this.permanentOrPause(error);
        if (permanent) return failedOutcome(permanent);
        continue;
      }
      for (const sent of delivery.sent) requestIds.add(sent.requestId);
      message = delivery.sent[0]?.message ?? message;
      batchRecipientCount = Math.max(batchRecipientCount, delivery.batchRecipientCount);
      const permanent = delivery.failed.map((f) => f.error).find((e) => !isTransient(e));
      if (permanent) {
        const sentCount = action.recipients.length - delivery.failed.length;
        return failedOutcome(
          permanent,
          sentCount > 0 ? `${sentCount} of ${action.recipients.length} recipients sent; ` : '',
        );
      }
      if (delivery.failed.length === 0) {
        return {
          status: 'sent',
          requestIds: [...requestIds],
          message,
          campaignId: action.content.campaignId,
          recipientCount: action.recipients.length,
          batchRecipientCount,
        };
      }
      // Pause once for the batch's trouble; only the recipients whose request failed go again.
      this.permanentOrPause(delivery.failed[0].error);
      pending = delivery.failed.map((f) => f.recipient);
    }
  }

  private async contactList(action: ContactListAction): Promise<StoredOutcome> {
    for (;;) {
      await this.gate.waitOpen();
      try {
        const created =
          action.mode === 'exact'
            ? await this.contactLists.createExact(action.name, action.members)
            : await this.contactLists.addToWindow(action.listKey, action.window, action.members);
        return { status: 'created', ...created };
      } catch (error) {
        const permanent = this.permanentOrPause(error);
        if (permanent) return failedOutcome(permanent);
      }
    }
  }

  /** Pauses for transient trouble (and returns undefined); returns the error if it is final. */
  private permanentOrPause(error: unknown): VendorError | undefined {
    // Not the vendor's doing: a bug. Let it surface; the record stays uncommitted.
    if (!(error instanceof VendorError)) throw error;
    if (error instanceof VendorAuthError) {
      this.metrics.vendorPauses.inc({ reason: 'auth' });
      this.gate.trip(
        'auth',
        this.config.batching.pauseOnAuthFailureMs,
        `status ${error.status ?? '?'}`,
      );
      return undefined;
    }
    if (!error.retriable) return error;
    if (this.gate.trip('outage', this.config.batching.pauseOnVendorFailureMs, error.message)) {
      this.metrics.vendorPauses.inc({ reason: 'outage' });
    }
    return undefined;
  }
}

function isTransient(error: VendorError): boolean {
  return error instanceof VendorAuthError || error.retriable;
}

function failedOutcome(error: VendorError, prefix = ''): StoredOutcome {
  return {
    status: 'failed',
    errorCode: error.name,
    vendorStatus: error.status,
    message: `${prefix}${error.message}`,
  };
}
