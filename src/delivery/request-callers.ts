import type { CampaignChunkResult } from '../email-api/vendor.types';
import { ClaimLostError } from '../idempotency/claim-lost.error';
import type { Entry, RecipientResults, SendLedger, SuppressionCheck } from './batch-entry';

/**
 * The callers of one campaign request: just before each vendor request is written, its
 * recipients are checked against the suppression list (those on it are withheld) and the claims
 * of the callers it still carries are marked (those lost by then are withheld too); each caller
 * hears what became of its recipients the moment the last of them is answered, not when the
 * request's other chunks are, so that the action's owner records an accepted send at once.
 */
export class RequestCallers {
  /** Where each entry's recipients start in the request. */
  private readonly offsets = new Map<Entry, number>();
  /** The entry each recipient index belongs to. */
  private readonly owners: Entry[] = [];
  /** The chunk that carried each recipient index, once heard. */
  private readonly byIndex: Array<CampaignChunkResult | undefined>;
  private readonly lost = new Map<Entry, ClaimLostError>();
  private readonly told = new Set<Entry>();
  /** The recipient indexes found on the suppression list. */
  private readonly suppressed = new Set<number>();

  constructor(
    private readonly entries: Entry[],
    private readonly ledger?: SendLedger,
    private readonly suppression?: SuppressionCheck,
  ) {
    let offset = 0;
    for (const entry of entries) {
      this.offsets.set(entry, offset);
      for (let i = 0; i < entry.recipients.length; i++) this.owners.push(entry);
      offset += entry.recipients.length;
    }
    this.byIndex = new Array<CampaignChunkResult | undefined>(offset);
  }

  /**
   * The indexes that may be written: those not suppressed, of entries whose claims are still
   * held, now marked. One store round trip for the check, one for the marks, whatever the number
   * of recipients: per request, never per recipient.
   */
  async beforeWrite(indexes: number[]): Promise<Set<number>> {
    // Without a check no await either: nothing else changes its turn in the event loop.
    const unsuppressed = this.suppression ? await this.unsuppressed(indexes) : indexes;
    if (unsuppressed === undefined) {
      // Not checked, so not sent: the actions claim again and retry, as for a failed mark.
      for (const i of indexes) this.lostClaimOf(this.owners[i]);
      return new Set();
    }
    const carried = [...new Set(unsuppressed.map((i) => this.owners[i]))];
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
    return new Set(unsuppressed.filter((i) => !this.lost.has(this.owners[i])));
  }

  /**
   * The indexes whose recipients are not on the suppression list for their action's category
   * (those that are, remembered); undefined when the list could not be read.
   */
  private async unsuppressed(indexes: number[]): Promise<number[] | undefined> {
    const asked = indexes.filter((i) => this.owners[i].action && !this.suppressed.has(i));
    if (asked.length === 0) return indexes.filter((i) => !this.suppressed.has(i));
    let verdicts: boolean[];
    try {
      verdicts = await this.suppression!.checkEach(
        asked.map((i) => ({
          address: this.recipientAt(i).email,
          category: this.owners[i].action!.category,
        })),
      );
    } catch {
      return undefined;
    }
    asked.forEach((i, n) => verdicts[n] && this.suppressed.add(i));
    return indexes.filter((i) => !this.suppressed.has(i));
  }

  private recipientAt(index: number): Entry['recipients'][number] {
    const entry = this.owners[index];
    return entry.recipients[index - this.offsets.get(entry)!];
  }

  private lostClaimOf(entry: Entry): void {
    const key = entry.action?.claim.key;
    if (key !== undefined) this.lost.set(entry, new ClaimLostError(key));
  }

  /** A chunk's answer: every caller whose recipients are all answered now hears of them. */
  heard(chunk: CampaignChunkResult): void {
    for (const i of chunk.recipientIndexes) this.byIndex[i] = chunk;
    let last: Entry | undefined;
    for (const i of chunk.recipientIndexes) {
      const entry = this.owners[i];
      if (entry === last) continue;
      last = entry;
      if (!this.told.has(entry) && this.answered(entry)) this.tell(entry);
    }
  }

  /** The request is over: every caller not told yet hears `error`, or what is known. */
  finish(error?: unknown): void {
    for (const entry of this.entries) {
      if (this.told.has(entry)) continue;
      if (error === undefined) {
        this.tell(entry);
        continue;
      }
      this.told.add(entry);
      entry.failed(error);
    }
  }

  private answered(entry: Entry): boolean {
    const offset = this.offsets.get(entry)!;
    for (let i = 0; i < entry.recipients.length; i++) {
      if (!this.byIndex[offset + i]) return false;
    }
    return true;
  }

  private tell(entry: Entry): void {
    this.told.add(entry);
    const lost = this.lost.get(entry);
    if (lost) {
      entry.failed(lost);
      return;
    }
    let results: RecipientResults;
    try {
      results = resultsOf(entry, this.offsets.get(entry)!, this.byIndex, this.suppressed);
    } catch (error) {
      entry.failed(error);
      return;
    }
    entry.delivered(results);
  }
}

function resultsOf(
  { recipients }: Entry,
  offset: number,
  byIndex: ReadonlyArray<CampaignChunkResult | undefined>,
  suppressed: ReadonlySet<number>,
): RecipientResults {
  const results: RecipientResults = {
    sent: [],
    failed: [],
    suppressed: [],
    batchRecipientCount: 0,
    ambiguousAttempts: 0,
  };
  // Usually one request carried them all: a short list, not a Set.
  const carriers: CampaignChunkResult[] = [];
  for (let i = 0; i < recipients.length; i++) {
    const recipient = recipients[i];
    const chunk = byIndex[offset + i];
    if (!chunk) throw new Error(`vendor client returned no outcome for recipient ${offset + i}`);
    if (suppressed.has(offset + i)) {
      results.suppressed.push(recipient); // withheld, never written: its chunk is not counted
      continue;
    }
    if (!carriers.includes(chunk)) {
      carriers.push(chunk);
      results.batchRecipientCount += chunk.recipientIndexes.length;
      results.ambiguousAttempts += chunk.ambiguousAttempts;
    }
    if (chunk.ok)
      results.sent.push({ recipient, requestId: chunk.requestId, message: chunk.message });
    else results.failed.push({ recipient, error: chunk.error });
  }
  return results;
}
