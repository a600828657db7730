import { normalisedAddress } from '../email-api/vendor-request.validator';
import { endSpan, type Tracing } from '../tracing/tracing';
import type { CampaignContent } from '../templates/planner';
import { StoppingError } from '../email-api/vendor.errors';
import { systemClock, type Clock } from './clock';
import type { CampaignSendHooks } from '../email-api/vendor.client';
import type {
  CampaignChunkResult,
  CampaignRecipient,
  CampaignRequest,
  CampaignSendResult,
} from '../email-api/vendor.types';
import { RequestCallers } from './request-callers';
import type {
  BatchedAction,
  Entry,
  RecipientResults,
  SendLedger,
  SuppressionCheck,
} from './batch-entry';

export type { BatchedAction, RecipientResults, SendLedger, SuppressionCheck };

export interface CampaignSender {
  /** `recipientJson`: each of `request.recipients.to` serialised, for the bodies to reuse. */
  sendCampaign(
    request: CampaignRequest,
    hooks?: CampaignSendHooks,
    recipientJson?: readonly string[],
  ): Promise<CampaignSendResult>;
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
 * What a batcher works with beside the vendor, by name: each is optional, and a test leaves out
 * what it does not need.
 */
export interface CampaignBatcherPeers {
  /** Marks each request's claims `sending` just before it is written; none: nothing marked. */
  ledger?: SendLedger;
  /** Checks each request's recipients against the suppression list; none: nobody withheld. */
  suppression?: SuppressionCheck;
  tracing?: Pick<Tracing, 'vendorRequest'>;
  clock?: Clock;
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
 * With a suppression check, the recipients of each vendor request are checked in one store round
 * trip just before it is written, and those on the list are withheld (`RequestCallers`): a check
 * when a recipient joins would miss an address suppressed while its request gathers or waits
 * for its budget token. Batching does not change: a withheld recipient still counted towards
 * its request's size. With a ledger, the claims of each vendor request are marked `sending` in
 * one atomic step just before it is written (a claim lost by then is not sent). Each caller hears what became of its
 * recipients the moment the last of them is answered (`RequestCallers`); recording the outcome
 * is the caller's.
 */
export class CampaignBatcher {
  private readonly open = new Map<string, OpenBatch>();
  private stopped = false;
  private readonly ledger?: SendLedger;
  private readonly suppression?: SuppressionCheck;
  private readonly tracing?: Pick<Tracing, 'vendorRequest'>;
  private readonly clock: Clock;

  constructor(
    private readonly sender: CampaignSender,
    private readonly options: CampaignBatcherOptions,
    { ledger, suppression, tracing, clock = systemClock }: CampaignBatcherPeers = {},
  ) {
    this.ledger = ledger;
    this.suppression = suppression;
    this.tracing = tracing;
    this.clock = clock;
  }

  /** Adds one caller's recipients; resolves with what became of them once they are answered. */
  add(
    batchKey: string,
    content: CampaignContent,
    recipients: CampaignRecipient[],
    action?: BatchedAction,
  ): Promise<RecipientResults> {
    if (this.stopped) return Promise.reject(new StoppingError());
    // Each recipient is serialised once, here: its size counts towards `maxBytes`, and the
    // same text goes into the body.
    const json = recipients.map((r) => JSON.stringify(r));
    return new Promise<RecipientResults>((delivered, failed) =>
      this.enter(batchKey, content, { recipients, json, action, delivered, failed }),
    );
  }

  private enter(batchKey: string, content: CampaignContent, entry: Entry): void {
    // What JSON.stringify(recipients) would measure.
    let bytes = 1 + entry.json.length;
    for (const text of entry.json) bytes += Buffer.byteLength(text, 'utf8');
    const addresses = entry.recipients.map((r) => normalisedAddress(r.email));
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
    batch.entries.push(entry);
    for (const address of addresses) batch.emails.add(address);
    batch.count += entry.recipients.length;
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
      for (const entry of batch.entries) entry.failed(new StoppingError());
    }
    this.open.clear();
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
    void this.send(batch); // settles each of its entries itself
  }

  private async send(batch: OpenBatch): Promise<void> {
    const entries = batch.entries;
    const to = entries.flatMap((e) => e.recipients);
    const callers = new RequestCallers(entries, this.ledger, this.suppression);
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
          beforeWrite: (indexes) => callers.beforeWrite(indexes),
          onChunk: (chunk) => callers.heard(chunk),
        },
        entries.flatMap((e) => e.json),
      );
    } catch (error) {
      if (span) endSpan(span, error);
      callers.finish(error);
      return;
    }
    if (span) {
      span.setAttribute('mailbridge.vendor.requests', chunks.length);
      endSpan(span, chunks.find((chunk) => !chunk.ok)?.error);
    }
    for (const chunk of chunks) callers.heard(chunk); // those not reported as they went
    callers.finish();
  }
}
