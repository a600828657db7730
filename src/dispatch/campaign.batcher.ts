import type { CampaignContent } from '../templates/template';
import type { VendorError } from '../vendor/vendor.errors';
import type {
  CampaignChunkResult,
  CampaignRecipient,
  CampaignRequest,
  CampaignSendResult,
} from '../vendor/vendor.types';

export interface CampaignSender {
  sendCampaign(request: CampaignRequest): Promise<CampaignSendResult>;
}

/** What became of the recipients one caller added, in the order it gave them. */
export interface CampaignDelivery {
  sent: Array<{ recipient: CampaignRecipient; requestId: string; message: string }>;
  failed: Array<{ recipient: CampaignRecipient; error: VendorError }>;
  /** Recipients of the whole vendor request(s) this delivery travelled in. */
  batchRecipientCount: number;
}

export interface CampaignBatcherOptions {
  maxRecipients: number;
  maxBytes: number;
  lingerMs: number;
}

interface Entry {
  recipients: CampaignRecipient[];
  resolve: (delivery: CampaignDelivery) => void;
  reject: (error: unknown) => void;
}

interface OpenBatch {
  content: CampaignContent;
  entries: Entry[];
  emails: Set<string>;
  count: number;
  bytes: number;
  timer?: NodeJS.Timeout;
}

/**
 * Gathers recipients of many events that share a batch key (so share subject, body and sender)
 * into one campaign request, sent when it holds `maxRecipients`, would pass `maxBytes`, or has
 * waited `lingerMs`. The recipients of one event always travel together, and an address is
 * never twice in one request: a repeat starts the next request instead.
 */
export class CampaignBatcher {
  private readonly open = new Map<string, OpenBatch>();
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly sender: CampaignSender,
    private readonly options: CampaignBatcherOptions,
  ) {}

  add(
    batchKey: string,
    content: CampaignContent,
    recipients: CampaignRecipient[],
  ): Promise<CampaignDelivery> {
    return new Promise<CampaignDelivery>((resolve, reject) => {
      const bytes = Buffer.byteLength(JSON.stringify(recipients));
      let batch = this.open.get(batchKey);
      if (batch && !this.fits(batch, recipients, bytes)) {
        this.flush(batchKey);
        batch = undefined;
      }
      if (!batch) {
        batch = {
          content,
          entries: [],
          emails: new Set(),
          count: 0,
          bytes: Buffer.byteLength(JSON.stringify(content)),
        };
        this.open.set(batchKey, batch);
        batch.timer = setTimeout(() => this.flush(batchKey), this.options.lingerMs);
      }
      batch.entries.push({ recipients, resolve, reject });
      for (const r of recipients) batch.emails.add(r.email.toLowerCase());
      batch.count += recipients.length;
      batch.bytes += bytes;
      if (batch.count >= this.options.maxRecipients || batch.bytes >= this.options.maxBytes)
        this.flush(batchKey);
    });
  }

  /** Sends everything still gathering and waits for every request under way. */
  async drain(): Promise<void> {
    for (const key of [...this.open.keys()]) this.flush(key);
    await Promise.allSettled([...this.inFlight]);
  }

  private fits(batch: OpenBatch, recipients: CampaignRecipient[], bytes: number): boolean {
    if (recipients.some((r) => batch.emails.has(r.email.toLowerCase()))) return false;
    return (
      batch.count + recipients.length <= this.options.maxRecipients &&
      batch.bytes + bytes <= this.options.maxBytes
    );
  }

  private flush(batchKey: string): void {
    const batch = this.open.get(batchKey);
    if (!batch) return;
    this.open.delete(batchKey);
    clearTimeout(batch.timer);
    const sending = this.send(batch).finally(() => this.inFlight.delete(sending));
    this.inFlight.add(sending);
  }

  private async send(batch: OpenBatch): Promise<void> {
    const to = batch.entries.flatMap((e) => e.recipients);
    let chunks: CampaignChunkResult[];
    try {
      chunks = await this.sender.sendCampaign({ ...batch.content, recipients: { to } });
    } catch (error) {
      for (const entry of batch.entries) entry.reject(error);
      return;
    }
    const byIndex = new Map<number, CampaignChunkResult>();
    for (const chunk of chunks) for (const i of chunk.recipientIndexes) byIndex.set(i, chunk);
    let offset = 0;
    for (const entry of batch.entries) {
      try {
        entry.resolve(deliveryOf(entry.recipients, offset, byIndex));
      } catch (error) {
        entry.reject(error);
      }
      offset += entry.recipients.length;
    }
  }
}

function deliveryOf(
  recipients: CampaignRecipient[],
  offset: number,
  byIndex: Map<number, CampaignChunkResult>,
): CampaignDelivery {
  const delivery: CampaignDelivery = { sent: [], failed: [], batchRecipientCount: 0 };
  const carriers = new Set<CampaignChunkResult>();
  recipients.forEach((recipient, i) => {
    const chunk = byIndex.get(offset + i);
    if (!chunk) throw new Error(`vendor client returned no outcome for recipient ${offset + i}`);
    carriers.add(chunk);
    if (chunk.ok)
      delivery.sent.push({ recipient, requestId: chunk.requestId, message: chunk.message });
    else delivery.failed.push({ recipient, error: chunk.error });
  });
  delivery.batchRecipientCount = [...carriers].reduce((n, c) => n + c.recipientIndexes.length, 0);
  return delivery;
}
