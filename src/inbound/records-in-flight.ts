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
  private readonly running = new Set<Promise<void>>();

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
    const outcomes = outcomesOf(handler, records);
    records.forEach((record, index) => this.follow(outcomes, index, record, progress));
  }

  private follow(
    outcomes: Promise<unknown[]>,
    index: number,
    record: ConsumedRecord,
    progress: PartitionProgress,
  ): void {
    const size = sizeOf(record);
    const leave = () => {
      this.running.delete(done);
      this.window.leave(size);
    };
    // One async function and one continuation per record (thousands are in flight at once). `run`
    // rejects only if telling its end threw, a bug that must still surface.
    const done = this.run(outcomes, index, record, progress).then(leave, (error: unknown) => {
      leave();
      throw error;
    });
    this.running.add(done);
  }

  /** Tells `ends` how the record ended. */
  private async run(
    outcomes: Promise<unknown[]>,
    index: number,
    record: ConsumedRecord,
    progress: PartitionProgress,
  ): Promise<void> {
    try {
      const all = await outcomes;
      await all[index];
    } catch (error) {
      this.ends.failed(record, progress, error);
      return;
    }
    this.ends.finished(record, progress, progress.complete(record.offset));
  }

  /** Records started and not yet at their outcome. */
  get size(): number {
    return this.running.size;
  }

  /** Resolves once no record runs, including any started while it waited. */
  async drained(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running]);
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
