import type { ActionOutcome } from '../contracts/action-outcome';
import type { CampaignChunkResult, CampaignRecipient } from '../email-api/vendor.types';
import { ClaimLostError } from '../idempotency/claim-lost.error';
import type { CampaignDelivery, Entry, SendLedger } from './campaign-delivery';

/**
 * Marks each request's claims just before it is written, and records, as each request is
 * accepted, the outcome of every action it completes.
 */
export class AcceptanceRecorder {
  private readonly writes: Array<Promise<void>> = [];
  /** Each recorded entry's delivery, with the outcome recorded for it (`outcome`). */
  private readonly recorded = new Map<Entry, CampaignDelivery>();
  /** Entries whose recorded outcome the ledger has acknowledged. */
  private readonly stored = new Set<Entry>();
  private readonly chunks = new Set<CampaignChunkResult>();
  /** Where each entry's recipients start in the request. */
  private readonly offsets = new Map<Entry, number>();
  /** The entry each recipient index belongs to. */
  private readonly owners: Entry[] = [];
  /** The chunk that carried each recipient index, once heard. */
  private readonly byIndex: Array<CampaignChunkResult | undefined>;
  private readonly lost = new Map<Entry, Error>();

  constructor(
    entries: Entry[],
    recipients: number,
    private readonly ledger?: SendLedger,
  ) {
    this.byIndex = new Array<CampaignChunkResult | undefined>(recipients);
    let offset = 0;
    for (const entry of entries) {
      this.offsets.set(entry, offset);
      for (let i = 0; i < entry.recipients.length; i++) this.owners.push(entry);
      offset += entry.recipients.length;
    }
  }

  /** The indexes that may be written: those of entries whose claims are still held. */
  async beforeWrite(indexes: number[]): Promise<Set<number>> {
    const carried = [...new Set(indexes.map((i) => this.owners[i]))];
    const claims = carried.flatMap((e) => (e.action ? [e.action.claim] : []));
    if (this.ledger && claims.length > 0) {
      let held: Set<string>;
      try {
        held = await this.ledger.markSending(claims);
      } catch {
        held = new Set(); // not marked, so not sent: the actions claim again and retry
      }
      for (const entry of carried) {
        const key = entry.action?.claim.key;
        if (key !== undefined && !held.has(key)) this.lost.set(entry, new ClaimLostError(key));
      }
    }
    return new Set(indexes.filter((i) => !this.lost.has(this.owners[i])));
  }

  lostClaim(entry: Entry): Error | undefined {
    return this.lost.get(entry);
  }

  heard(chunk: CampaignChunkResult): void {
    if (this.chunks.has(chunk)) return;
    this.chunks.add(chunk);
    for (const i of chunk.recipientIndexes) this.byIndex[i] = chunk;
    if (!chunk.ok || !this.ledger) return;
    const outcomes: Array<{ key: string; outcome: ActionOutcome }> = [];
    const completed: Entry[] = [];
    // Only the entries this chunk carried can have been completed by it.
    let last: Entry | undefined;
    for (const i of chunk.recipientIndexes) {
      const entry = this.owners[i];
      if (entry === last) continue;
      last = entry;
      if (!entry.action || this.recorded.has(entry) || !this.allSent(entry)) continue;
      const delivery = deliveryOf(entry.recipients, this.offsets.get(entry)!, this.byIndex);
      const outcome = entry.action.outcomeOf(delivery);
      if (!outcome) continue;
      delivery.outcome = outcome;
      this.recorded.set(entry, delivery);
      completed.push(entry);
      outcomes.push({ key: entry.action.claim.key, outcome });
    }
    if (outcomes.length === 0) return;
    this.writes.push(
      this.ledger.complete(outcomes).then(() => {
        for (const entry of completed) this.stored.add(entry);
      }),
    );
  }

  /** Whether every recipient of the entry went in an accepted request. */
  private allSent(entry: Entry): boolean {
    const offset = this.offsets.get(entry)!;
    for (let i = 0; i < entry.recipients.length; i++) {
      if (this.byIndex[offset + i]?.ok !== true) return false;
    }
    return true;
  }

  /**
   * What became of the entry's recipients; once `settled`, with `recorded` (and the outcome that
   * was recorded) when the ledger acknowledged its outcome.
   */
  deliveryOf(entry: Entry): CampaignDelivery {
    const known = this.recorded.get(entry);
    if (known && this.stored.has(entry)) {
      known.recorded = true;
      return known;
    }
    return deliveryOf(entry.recipients, this.offsets.get(entry)!, this.byIndex);
  }

  /** Waits for the records; a failed one is left to the caller's own record of the outcome. */
  async settled(): Promise<void> {
    await Promise.allSettled(this.writes);
  }
}

function deliveryOf(
  recipients: CampaignRecipient[],
  offset: number,
  byIndex: ReadonlyArray<CampaignChunkResult | undefined>,
): CampaignDelivery {
  const delivery: CampaignDelivery = {
    sent: [],
    failed: [],
    batchRecipientCount: 0,
    ambiguousAttempts: 0,
    recorded: false,
  };
  // Usually one request carried them all: a short list, not a Set.
  const carriers: CampaignChunkResult[] = [];
  for (let i = 0; i < recipients.length; i++) {
    const recipient = recipients[i];
    const chunk = byIndex[offset + i];
    if (!chunk) throw new Error(`vendor client returned no outcome for recipient ${offset + i}`);
    if (!carriers.includes(chunk)) {
      carriers.push(chunk);
      delivery.batchRecipientCount += chunk.recipientIndexes.length;
      delivery.ambiguousAttempts += chunk.ambiguousAttempts;
    }
    if (chunk.ok)
      delivery.sent.push({ recipient, requestId: chunk.requestId, message: chunk.message });
    else delivery.failed.push({ recipient, error: chunk.error });
  }
  return delivery;
}
