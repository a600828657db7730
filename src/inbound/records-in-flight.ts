import type { MessageHandler } from '@nestjs/microservices';
import { isObservable, lastValueFrom } from 'rxjs';
import type { ConsumedRecord } from '../kafka/consumed-record';
import { InFlightWindow, type WindowLimits } from './in-flight-window';
import { INBOUND_RECORDS } from './inbound-pattern';
import type { PartitionProgress } from './partition-progress';

/** What the transport does when a record reaches its outcome, or fails to. */
export interface RecordEnds {
  /** `next` is the partition's new committable offset, when it moved. */
  finished(record: ConsumedRecord, progress: PartitionProgress, next: string | undefined): void;
  /** No outcome: the record must be fetched again (its partition is rewound to it). */
  failed(record: ConsumedRecord, progress: PartitionProgress, error: unknown): void;
}

/**
 * The records this instance has fetched and is running to their outcomes, each on its own
 * promise, after the batch that brought it has returned: fetching goes on while they wait for
 * their campaign batch or their vendor call, bounded by the {@link InFlightWindow}. (An order's
 * contact-list window holds no record: its member is stored and the record finishes.)
 */
export class RecordsInFlight {
  readonly window: InFlightWindow;
  private running = 0;
  private waitingForNone: Array<() => void> = [];

  constructor(
    limits: WindowLimits,
    private readonly ends: RecordEnds,
  ) {
    this.window = new InFlightWindow(limits);
  }

  /** Takes the record in if the window has room; false when it is full. */
  tryAdmit(record: ConsumedRecord): boolean {
    return this.window.tryEnter(sizeOf(record));
  }

  /**
   * Runs admitted records of one partition to their outcomes in the background: one call of the
   * handler for all of them (see {@link INBOUND_RECORDS}), then each record followed on its own.
   */
  start(handler: MessageHandler, records: ConsumedRecord[], progress: PartitionProgress): void {
    this.running += records.length;
    outcomesOf(handler, records).then(
      (outcomes) => records.forEach((record, i) => this.follow(outcomes[i], record, progress)),
      // Each on its own, so that one `ends` that throws does not keep the others in the window.
      (error: unknown) =>
        records.forEach((record) => queueMicrotask(() => this.failed(record, progress, error))),
    );
  }

  /**
   * Thousands of records are in flight at once: each is followed by two callbacks on its
   * outcome, not an async function suspended until it ends. When `ends` throws (a bug) the
   * record still leaves, and the error surfaces: an unhandled rejection, or an uncaught exception
   * where the handler call itself failed.
   */
  private follow(outcome: unknown, record: ConsumedRecord, progress: PartitionProgress): void {
    Promise.resolve(outcome).then(
      () => {
        try {
          this.ends.finished(record, progress, progress.complete(record.offset));
        } finally {
          this.leave(record);
        }
      },
      (error: unknown) => this.failed(record, progress, error),
    );
  }

  /** No outcome: `ends` rewinds the record's partition to it. */
  private failed(record: ConsumedRecord, progress: PartitionProgress, error: unknown): void {
    try {
      this.ends.failed(record, progress, error);
    } finally {
      this.leave(record);
    }
  }

  private leave(record: ConsumedRecord): void {
    this.window.leave(sizeOf(record));
    this.running -= 1;
    if (this.running > 0) return;
    const waiting = this.waitingForNone;
    this.waitingForNone = [];
    for (const resolve of waiting) resolve();
  }

  /** Records started and not yet at their outcome. */
  get size(): number {
    return this.running;
  }

  /** Resolves once no record runs, including any started while it waited. */
  async drained(): Promise<void> {
    if (this.running === 0) return;
    await new Promise<void>((resolve) => this.waitingForNone.push(resolve));
  }
}

/**
 * The handler's promise of each record's outcome, in the records' order. When the call itself
 * fails (an exception filter's answer), or answers something else, every record of it fails.
 */
async function outcomesOf(handler: MessageHandler, records: ConsumedRecord[]): Promise<unknown[]> {
  let outcomes: unknown = await handler(records);
  if (isObservable(outcomes)) outcomes = await lastValueFrom(outcomes, { defaultValue: undefined });
  if (!Array.isArray(outcomes) || outcomes.length !== records.length) {
    throw new Error(`the ${INBOUND_RECORDS} handler must answer one outcome per record`);
  }
  return outcomes as unknown[];
}

/** What a fetched record weighs in the window: its key and value. */
function sizeOf(record: ConsumedRecord): number {
  return (record.value?.length ?? 0) + (record.key?.length ?? 0);
}
