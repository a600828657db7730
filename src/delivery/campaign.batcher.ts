import type { Context } from '@opentelemetry/api';
import { normalisedAddress } from '../email-api/vendor-request.validator';
import { endSpan, type Tracing } from '../tracing/tracing';
import type { CampaignContent } from '../templates/planner';
import { ClaimLostError } from '../idempotency/claim-lost.error';
import { StoppingError } from '../email-api/vendor.errors';
import { systemClock, type Clock } from './clock';
import type { ActionOutcome } from '../contracts/action-outcome';
import type { HeldClaim, IdempotencyStore } from '../idempotency/idempotency.store';
import type { CampaignSendHooks } from '../email-api/vendor.client';
import type { VendorError } from '../email-api/vendor.errors';
import type {
  CampaignChunkResult,
  CampaignRecipient,
  CampaignRequest,
  CampaignSendResult,
} from '../email-api/vendor.types';

export interface CampaignSender {
  /** `recipientJson`: each of `request.recipients.to` serialised, for the bodies to reuse. */
  sendCampaign(
    request: CampaignRequest,
    hooks?: CampaignSendHooks,
    recipientJson?: readonly string[],
  ): Promise<CampaignSendResult>;
}

/** Where claims are marked before a request is written and outcomes recorded when it is accepted. */
export type SendLedger = Pick<IdempotencyStore, 'markSending' | 'complete'>;

/** The claimed action some recipients belong to, and the outcome to record for it. */
export interface BatchedAction {
  claim: HeldClaim;
  /** The event's trace, which the vendor request carrying these recipients links to. */
  trace?: Context;
  /** The outcome to record once this delivery is known, or undefined if it does not end the action. */
  outcomeOf(delivery: CampaignDelivery): ActionOutcome | undefined;
}

/** What became of the recipients one caller added, in the order it gave them. */
export interface CampaignDelivery {
  sent: Array<{ recipient: CampaignRecipient; requestId: string; message: string }>;
  failed: Array<{ recipient: CampaignRecipient; error: VendorError }>;
  /** Recipients of the whole vendor request(s) this delivery travelled in. */
  batchRecipientCount: number;
  /** Failed attempts of those requests that may have reached the vendor all the same. */
  ambiguousAttempts: number;
  /** The outcome `outcomeOf` gave for this delivery is recorded in the ledger already. */
  recorded: boolean;
  /** That outcome, when `recorded`: the caller publishes exactly what was recorded. */
  outcome?: ActionOutcome;
}

export interface CampaignBatcherOptions {
  maxRecipients: number;
  maxBytes: number;
  lingerMs: number;
  /**
   * While the consumer is behind, how long a request not yet full may keep gathering: at each
   * linger's end it goes on while enough records wait to fill it and its pace so far would fill
   * it in the time left. At or below `lingerMs`, never.
   */
  maxLingerMs?: number;
  /** Records waiting to be consumed (`ConsumerBacklog`); none when not given. */
  waiting?: () => number;
  /**
   * Records the consumer holds at once (`CONSUMER_MAX_IN_FLIGHT`). A request keeps gathering only
   * if it could fill beside the others gathering: requests that hold the whole window between
   * them wait for records that cannot come in.
   */
  windowRecords?: number;
}

/**
 * How the batcher tells a caller what became of its recipients: exactly one of the two, once.
 * Neither may throw: they run in a loop over every caller of a request.
 */
export interface CampaignSettle {
  delivered(delivery: CampaignDelivery): void;
  failed(error: unknown): void;
}

interface Entry {
  recipients: CampaignRecipient[];
  /** Each recipient serialised: measured here, then joined into the request body as it is. */
  json: string[];
  action?: BatchedAction;
  settle: CampaignSettle;
}

interface OpenBatch {
  content: CampaignContent;
  entries: Entry[];
  emails: Set<string>;
  count: number;
  bytes: number;
  openedAt: number;
  /** Cancels the linger's timer. */
  cancelTimer?: () => void;
}

/** The shortest wait between two looks at the backlog while a request keeps gathering. */
const RECHECK_MIN_MS = 10;

/**
 * Gathers recipients of many events that share a batch key (so share subject, body and sender)
 * into one campaign request, sent when it holds `maxRecipients`, would pass `maxBytes`, or has
 * waited `lingerMs`. The recipients of one event always travel together, and an address is
 * never twice in one request: a repeat starts the next request instead.
 *
 * While the consumer is behind (records wait to be consumed that would fill the request) and the
 * request fills at a pace that fills it before `maxLingerMs`, the linger stretches: those records
 * are on their way, so a request sent at the linger would only be smaller (more requests for the
 * same recipients, against the vendor's rate limit). Caught up, or filling slowly, a request goes
 * at its linger as before, so a steady flow pays no more than `lingerMs`.
 *
 * With a ledger, the claims of each vendor request are marked `sending` in one atomic step just
 * before it is written (a claim lost by then is not sent), and the outcome of every action a
 * request completes is recorded in one atomic step the moment the vendor accepts it, before any
 * other work: the window in which a crash can leave an accepted send unrecorded is one Redis
 * round trip.
 */
export class CampaignBatcher {
  private readonly open = new Map<string, OpenBatch>();
  private readonly inFlight = new Set<Promise<void>>();
  private stopped = false;

  constructor(
    private readonly sender: CampaignSender,
    private readonly options: CampaignBatcherOptions,
    private readonly ledger?: SendLedger,
    private readonly tracing?: Pick<Tracing, 'vendorRequest'>,
    private readonly clock: Clock = systemClock,
  ) {}

  add(
    batchKey: string,
    content: CampaignContent,
    recipients: CampaignRecipient[],
    action?: BatchedAction,
  ): Promise<CampaignDelivery> {
    return new Promise<CampaignDelivery>((delivered, failed) =>
      this.enter(batchKey, content, recipients, action, { delivered, failed }),
    );
  }

  /**
   * {@link add} for a caller that follows many actions itself: `settle` hears what became of the
   * recipients, with no promise of their own while they wait.
   */
  enter(
    batchKey: string,
    content: CampaignContent,
    recipients: CampaignRecipient[],
    action: BatchedAction | undefined,
    settle: CampaignSettle,
  ): void {
    if (this.stopped) {
      settle.failed(new StoppingError());
      return;
    }
    // Each recipient is serialised once, here: its size counts towards `maxBytes`, and the
    // same text goes into the body. `bytes` is what JSON.stringify(recipients) would measure.
    const json = recipients.map((r) => JSON.stringify(r));
    let bytes = 1 + json.length;
    for (const text of json) bytes += Buffer.byteLength(text, 'utf8');
    const addresses = recipients.map((r) => normalisedAddress(r.email));
    let batch = this.open.get(batchKey);
    if (batch && !this.fits(batch, addresses, bytes)) {
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
        openedAt: this.clock.now(),
      };
      this.open.set(batchKey, batch);
      batch.cancelTimer = this.clock.after(this.options.lingerMs, () => this.lingered(batchKey));
    }
    batch.entries.push({ recipients, json, action, settle });
    for (const address of addresses) batch.emails.add(address);
    batch.count += recipients.length;
    batch.bytes += bytes;
    if (batch.count >= this.options.maxRecipients || batch.bytes >= this.options.maxBytes)
      this.flush(batchKey);
  }

  /**
   * The stop: recipients still gathering are given back (their callers hear `StoppingError`:
   * nothing of theirs was written), and so is whatever enters from now on. Requests under way
   * end as the vendor client lets them.
   */
  stop(): void {
    this.stopped = true;
    for (const batch of this.open.values()) {
      batch.cancelTimer?.();
      for (const entry of batch.entries) entry.settle.failed(new StoppingError());
    }
    this.open.clear();
  }

  /** Sends everything still gathering and waits for every request under way. */
  async drain(): Promise<void> {
    for (const key of [...this.open.keys()]) this.flush(key);
    await Promise.allSettled([...this.inFlight]);
  }

  private fits(batch: OpenBatch, addresses: string[], bytes: number): boolean {
    if (addresses.some((address) => batch.emails.has(address))) return false;
    return (
      batch.count + addresses.length <= this.options.maxRecipients &&
      batch.bytes + bytes <= this.options.maxBytes
    );
  }

  /** The linger passed: send, unless the consumer is behind enough to fill the request soon. */
  private lingered(batchKey: string): void {
    const batch = this.open.get(batchKey);
    if (!batch) return;
    const elapsed = this.clock.now() - batch.openedAt;
    const left = (this.options.maxLingerMs ?? 0) - elapsed;
    if (left > 0 && this.fillsWithin(batch, elapsed, left)) {
      const recheck = Math.min(Math.max(this.options.lingerMs, RECHECK_MIN_MS), left);
      batch.cancelTimer = this.clock.after(recheck, () => this.lingered(batchKey));
      return;
    }
    this.flush(batchKey);
  }

  /**
   * Whether the request will fill in the time left: enough records wait to be consumed, it has
   * filled so far at a pace that fills it in time, and it could fill beside the other requests
   * gathering without their holding the whole window.
   */
  private fillsWithin(batch: OpenBatch, elapsed: number, left: number): boolean {
    const room = this.options.maxRecipients - batch.count;
    if ((this.options.waiting?.() ?? 0) < room) return false;
    if (batch.count * left < room * elapsed) return false;
    let gathering = 0;
    for (const open of this.open.values()) gathering += open.count;
    return gathering + room <= (this.options.windowRecords ?? Infinity);
  }

  private flush(batchKey: string): void {
    const batch = this.open.get(batchKey);
    if (!batch) return;
    this.open.delete(batchKey);
    batch.cancelTimer?.();
    const sending = this.send(batch).finally(() => this.inFlight.delete(sending));
    this.inFlight.add(sending);
  }

  private async send(batch: OpenBatch): Promise<void> {
    const entries = batch.entries;
    const to = entries.flatMap((e) => e.recipients);
    const recorder = new AcceptanceRecorder(entries, to.length, this.ledger);
    const span = this.tracing?.vendorRequest(
      'send campaign',
      entries.map((e) => e.action?.trace),
      { 'mailbridge.events': entries.length, 'mailbridge.recipients': to.length },
    );
    let chunks: CampaignChunkResult[];
    try {
      chunks = await this.sender.sendCampaign(
        { ...batch.content, recipients: { to } },
        {
          beforeWrite: (indexes) => recorder.beforeWrite(indexes),
          onChunk: (chunk) => recorder.heard(chunk),
        },
        entries.flatMap((e) => e.json),
      );
    } catch (error) {
      if (span) endSpan(span, error);
      for (const entry of entries) entry.settle.failed(error);
      return;
    }
    if (span) {
      span.setAttribute('mailbridge.vendor.requests', chunks.length);
      endSpan(span, chunks.find((chunk) => !chunk.ok)?.error);
    }
    for (const chunk of chunks) recorder.heard(chunk); // a sender that did not report as it went
    await recorder.settled();
    for (const entry of entries) {
      const lost = recorder.lostClaim(entry);
      if (lost) {
        entry.settle.failed(lost);
        continue;
      }
      let delivery: CampaignDelivery;
      try {
        delivery = recorder.deliveryOf(entry);
      } catch (error) {
        entry.settle.failed(error);
        continue;
      }
      entry.settle.delivered(delivery);
    }
  }
}

/**
 * Marks each request's claims just before it is written, and records, as each request is
 * accepted, the outcome of every action it completes.
 */
class AcceptanceRecorder {
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
