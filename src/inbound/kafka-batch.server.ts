import { Logger } from '@nestjs/common';
import { Server, type CustomTransportStrategy, type MessageHandler } from '@nestjs/microservices';
import type { Consumer, EachBatchPayload, Kafka } from 'kafkajs';
import type { ConsumerStatus } from './consumer-status';
import { toConsumedRecord, type ConsumedRecord } from '../kafka/consumed-record';
import type { MetricsService } from '../metrics/metrics.service';
import {
  CONSUMER_RETRIES,
  FETCH_MAX_BYTES,
  FETCH_MAX_BYTES_PER_PARTITION,
  HEARTBEAT_INTERVAL_MS,
  MAX_WAIT_TIME_MS,
} from '../kafka/kafka-tuning';
import { FetchPauses } from './fetch-pauses';
import { OffsetCommitter } from './offset-committer';
import { PartitionProgress } from './partition-progress';
import { INBOUND_RECORDS } from './inbound-pattern';
import { RecordsInFlight } from './records-in-flight';
import { howItEnded, settleWithin } from './settle-within';
import { doneOrDependencyAway, leftoversLine, type Dependencies } from './stop-leftovers';

export interface KafkaBatchServerOptions {
  groupId: string;
  topics: string[];
  /** Records held at once across all partitions of this instance; beyond it, fetching waits. */
  maxInFlight: number;
  /** Bytes (keys and values) of the records held at once; beyond it, fetching waits. */
  maxInFlightBytes: number;
  /** How often finished offsets are committed (also when a rebalance starts, and on stop). */
  commitIntervalMs: number;
  /** How long a stop waits for in-flight records before abandoning them uncommitted. */
  shutdownTimeoutMs: number;
  /** Where a group without a committed offset for a partition starts reading it. */
  startFrom: 'latest' | 'earliest';
  /** How long the group waits for a silent member before its partitions go to another. */
  sessionTimeoutMs: number;
  /** Partitions whose batches are handed over at once. */
  partitionsConcurrently: number;
  /** Whether fetching a topic that does not exist may make the broker create it. */
  allowAutoTopicCreation: boolean;
  /** Consumption pauses while this says closed, and resumes when it opens. */
  gate?: { onChange(listener: (state: { open: boolean }) => void): void };
  /** Given the lag and the in-flight window to read at each scrape; observes batch sizes. */
  metrics?: MetricsService;
  /**
   * The dependencies a record needs to reach its outcome and a commit needs (Redis, the broker),
   * each unreachable one named with its cause: a stop does not wait for records while one is.
   */
  dependencies?: Dependencies;
}

/**
 * After in-flight records (`shutdownTimeoutMs`), the stop allows these for its last steps: 4 s in
 * all, inside the 5 s margin `main.ts` gives the whole process beyond `SHUTDOWN_TIMEOUT_MS`.
 */
const FINAL_COMMIT_TIMEOUT_MS = 1_500;
const LEAVE_TIMEOUT_MS = 1_500;
const DISCONNECT_TIMEOUT_MS = 1_000;
/** How long a rewound partition waits before it is fetched again, so a failure cannot spin. */
const REWIND_DELAY_MS = 1_000;

/**
 * A Nest transport on kafkajs' `eachBatch`, chosen over the built-in Kafka transport because
 * mailbridge needs what that one does not give: records handled concurrently (so many events can
 * share one vendor request), fetching that goes on while they wait, and offsets committed only up
 * to the first record that has not reached its outcome.
 *
 * Every configured topic routes to the one `@EventPattern(INBOUND_RECORDS)` handler, given the
 * records of a partition admitted together; each record's promise it answers settles when that
 * record's outcome is on Kafka. A batch hands its records to
 * {@link RecordsInFlight} and returns as soon as they are admitted, not when they finish: kafkajs
 * fetches again only when every batch of its last fetch has returned, so a batch that waited for
 * its records held every partition to its slowest record's linger and vendor call. What bounds
 * the work instead is the in-flight window, in records and bytes: a batch that meets a full
 * window waits for room before it admits the rest, and that wait is the back pressure.
 *
 * A record that fails (no outcome: it must run again) rewinds its partition to itself, as a
 * consumer restart would: the partition's later records commit nothing, and it is fetched again
 * from the failed record after a short pause.
 *
 * kafkajs' auto-commit is off: it would commit after every batch whatever its records became.
 * Finished offsets are committed instead on a timer, when a rebalance starts and on stop, each
 * commit checked against the broker (`OffsetCommitter`). Not after every batch: batches are
 * handed over every few milliseconds, and a commit per batch is a write to the broker's offsets
 * log per batch; what a crash repeats in exchange is at most one interval of results.
 *
 * A stop never calls `consumer.stop()` while work is left: kafkajs' commits are no-ops from that
 * moment. It pauses fetching, lets in-flight records finish (up to `shutdownTimeoutMs`, and not
 * at all while Redis or the broker is unreachable: no record can reach its outcome then), commits
 * them while the consumer still runs and owns its partitions, and only then stops, leaves and
 * disconnects, each step with its own time limit. What it left uncommitted (records without an
 * outcome, offsets the broker did not take) it says in one line, with the reason.
 */
export class KafkaBatchServer extends Server implements CustomTransportStrategy {
  override readonly propagatesEventHandlerErrors = true;
  protected override readonly logger = new Logger(KafkaBatchServer.name);
  private consumer?: Consumer;
  private committer?: OffsetCommitter;
  private pauses?: FetchPauses;
  private readonly records: RecordsInFlight;
  private readonly progress = new Map<string, PartitionProgress>();
  private commitTimer?: NodeJS.Timeout;
  private readonly rewindTimers = new Set<NodeJS.Timeout>();
  private stopping = false;
  /** Resolves when a stop begins, so that batches waiting for room return at once. */
  private readonly stopRequested: Promise<void>;
  private requestStop: () => void = () => undefined;
  /** Set once the stop has handed over to kafkajs: a batch after that belongs to no one. */
  private stopped = false;
  /** Records that ended without an outcome once the service began to stop. */
  private givenBack = 0;

  constructor(
    private readonly kafka: Kafka,
    private readonly options: KafkaBatchServerOptions,
    private readonly consumerStatus: ConsumerStatus,
  ) {
    super();
    this.stopRequested = new Promise((resolve) => (this.requestStop = resolve));
    this.records = new RecordsInFlight(
      { records: options.maxInFlight, bytes: options.maxInFlightBytes },
      {
        finished: (record, progress, next) => this.finished(record, progress, next),
        failed: (record, progress, error) => this.rewind(record, progress, error),
      },
    );
    options.metrics?.watchConsumer({
      lag: () => consumerStatus.lag(),
      inFlight: () => this.records.window.inFlight,
      limits: { records: options.maxInFlight, bytes: options.maxInFlightBytes },
    });
  }

  listen(callback: (error?: unknown) => void): void {
    this.start().then(() => callback(), callback);
  }

  async close(): Promise<void> {
    const consumer = this.consumer;
    if (!consumer || this.stopping) return;
    this.stopping = true;
    this.requestStop();
    this.consumerStatus.markDown('consumer is stopping');
    clearInterval(this.commitTimer);
    for (const timer of this.rewindTimers) clearTimeout(timer);
    this.pauses?.stop();
    const drained = await settleWithin(
      doneOrDependencyAway(this.records.drained(), this.options.dependencies),
      this.options.shutdownTimeoutMs,
    );
    const commit = await this.commitAtStop();
    this.sayWhatWasLeft(drained.kind === 'timeout', commit);
    this.stopped = true;
    const left = await settleWithin(consumer.stop(), LEAVE_TIMEOUT_MS);
    if (left.kind !== 'done')
      this.logger.warn(`consumer did not leave its group: ${howItEnded(left)}`);
    const closed = await settleWithin(consumer.disconnect(), DISCONNECT_TIMEOUT_MS);
    if (closed.kind !== 'done')
      this.logger.warn(`consumer did not disconnect: ${howItEnded(closed)}`);
    this.consumer = undefined;
    this.logger.log('consumer stopped');
  }

  on(): never {
    throw new Error('KafkaBatchServer does not expose transport events; see ConsumerStatus');
  }

  unwrap<T>(): T {
    return this.consumer as T;
  }

  private async start(): Promise<void> {
    // Looked up once: Nest resolves a pattern by parsing it, which is not work for every fetch.
    const handler = this.getHandlerByPattern(INBOUND_RECORDS);
    if (!handler) throw new Error(`no handler registered for ${INBOUND_RECORDS}`);
    const consumer = this.kafka.consumer({
      groupId: this.options.groupId,
      sessionTimeout: this.options.sessionTimeoutMs,
      heartbeatInterval: HEARTBEAT_INTERVAL_MS,
      maxWaitTimeInMs: MAX_WAIT_TIME_MS,
      maxBytesPerPartition: FETCH_MAX_BYTES_PER_PARTITION,
      maxBytes: FETCH_MAX_BYTES,
      allowAutoTopicCreation: this.options.allowAutoTopicCreation,
      // A crash during a stop must not bring the consumer back.
      retry: { retries: CONSUMER_RETRIES, restartOnFailure: () => Promise.resolve(!this.stopping) },
    });
    const committer = new OffsetCommitter(consumer, this.logger);
    this.consumer = consumer;
    this.committer = committer;
    this.pauses = new FetchPauses(consumer, this.options.topics, this.logger);
    this.watch(consumer, committer, this.pauses);
    await consumer.connect();
    if (this.stopping) return;
    await consumer.subscribe({
      topics: this.options.topics,
      fromBeginning: this.options.startFrom === 'earliest',
    });
    if (this.stopping) return;
    this.commitTimer = setInterval(() => void committer.commit(), this.options.commitIntervalMs);
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: this.options.partitionsConcurrently,
      eachBatch: (payload) => this.processBatch(handler, payload, committer),
    });
    if (this.stopping) return;
    this.logger.log(`consuming ${this.options.topics.join(', ')} as group ${this.options.groupId}`);
  }

  private watch(consumer: Consumer, committer: OffsetCommitter, pauses: FetchPauses): void {
    this.consumerStatus.watchMembership(this.options.sessionTimeoutMs);
    consumer.on(consumer.events.HEARTBEAT, () => this.consumerStatus.heard());
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
      committer.assign(payload.memberAssignment);
      this.consumerStatus.assigned(payload.memberAssignment);
      if (!this.stopping) this.consumerStatus.markJoined();
    });
    consumer.on(consumer.events.REBALANCING, () => void committer.commit());
    this.options.gate?.onChange(({ open }) => pauses.gate(open));
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      const { error, restart } = payload;
      if (this.stopping) {
        this.logger.debug(`consumer ended during the stop: ${error.message}`);
        return;
      }
      const what = `consumer crashed (restart: ${String(restart)}): ${error.name}: ${error.message}`;
      this.consumerStatus.crashed(what);
      if (!restart) this.consumerStatus.markFailed(what);
      this.logger.error(what);
    });
  }

  private async processBatch(
    handler: MessageHandler,
    payload: EachBatchPayload,
    committer: OffsetCommitter,
  ): Promise<void> {
    // A batch after the stop handed over (kafkajs rejoined behind our back): end that consumer.
    if (this.stopped)
      throw Object.assign(new Error('the transport has stopped'), { retriable: false });
    const { topic, partition, messages } = payload.batch;
    this.options.metrics?.batchRecords.observe(messages.length);
    let next = 0;
    // While stopping, or once kafkajs gave the batch up (a rebalance, a seek), start nothing
    // more: the records left unresolved are fetched again, here or by the partition's next owner.
    while (next < messages.length && !this.stopping && payload.isRunning() && !payload.isStale()) {
      const admitted: ConsumedRecord[] = [];
      for (; next < messages.length; next++) {
        const record = toConsumedRecord(topic, partition, messages[next]);
        if (!this.records.tryAdmit(record)) break;
        admitted.push(record);
      }
      if (admitted.length > 0) this.startRecords(handler, admitted, payload, committer);
      if (next < messages.length) await this.roomOrHeartbeat(payload);
    }
  }

  /** Runs admitted records of one partition in the background and lets fetching move past them. */
  private startRecords(
    handler: MessageHandler,
    admitted: ConsumedRecord[],
    payload: EachBatchPayload,
    committer: OffsetCommitter,
  ): void {
    const { topic, partition } = payload.batch;
    const progress = this.progressOf(topic, partition, committer.generation);
    progress.add(admitted.map((r) => r.offset));
    const last = admitted[admitted.length - 1].offset;
    this.consumerStatus.fetched(topic, partition, admitted[0].offset, last);
    this.consumerStatus.highWatermark(topic, partition, payload.batch.highWatermark);
    this.records.start(handler, admitted, progress);
    payload.resolveOffset(last);
  }

  /**
   * The window is full: the batch waits for room, which keeps kafkajs from fetching more (it
   * fetches again only when every batch of its last fetch returned). Waiting rather than pausing
   * the partition and dropping the rest of the batch: a paused partition's fetched records would
   * be fetched and decoded again, up to a megabyte per partition for a few hundred admitted. The
   * group still hears from this member while it waits, and a stop or rebalance ends the wait.
   */
  private async roomOrHeartbeat(payload: EachBatchPayload): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      new Promise<void>((resolve) => this.records.window.onRoom(resolve)),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, HEARTBEAT_INTERVAL_MS))),
      this.stopRequested,
    ]);
    clearTimeout(timer);
    await payload
      .heartbeat()
      .catch((error: Error) => this.logger.debug(`heartbeat: ${error.message}`));
  }

  private finished(
    record: ConsumedRecord,
    progress: PartitionProgress,
    next: string | undefined,
  ): void {
    const { topic, partition } = record;
    this.consumerStatus.finished(topic, partition, next);
    if (next !== undefined) {
      this.committer?.offer({ topic, partition, offset: next }, progress.generation);
    }
  }

  /**
   * A record failed without an outcome: fetch its partition again after a pause, as a restart
   * would, from the first record of this ownership not yet done (an earlier one still running
   * could fail unseen once its progress is retired, while the new fetch commits past it). Those
   * records, running or not, commit nothing from here on; they run again after the rewind, where
   * the idempotency store turns what they already sent into results rather than second sends.
   */
  private rewind(record: ConsumedRecord, progress: PartitionProgress, error: unknown): void {
    const { topic, partition } = record;
    const offset = progress.firstUnfinished ?? record.offset;
    // Given back by the stop (its first steps end the work they can: see ConsumerStatus.stopping).
    if (this.stopping || this.consumerStatus.stopping) {
      this.givenBack += 1;
      return;
    }
    if (progress.retired) return;
    progress.retire();
    this.progress.delete(`${topic}|${partition}`);
    const from = offset === record.offset ? 'it' : `${offset}, the first record not yet done`;
    this.logger.warn(
      `record ${topic}/${partition}@${record.offset} failed without an outcome (${asError(error).message}); fetching the partition again from ${from}`,
    );
    const pauses = this.pauses;
    pauses?.hold(topic, partition);
    try {
      this.consumer?.seek({ topic, partition, offset });
    } catch (seekError) {
      this.logger.warn(`rewind of ${topic}/${partition}: ${(seekError as Error).message}`);
    }
    const timer = setTimeout(() => {
      this.rewindTimers.delete(timer);
      pauses?.release(topic, partition);
    }, REWIND_DELAY_MS);
    this.rewindTimers.add(timer);
  }

  /** The partition's progress for this ownership of it: a new one after a rebalance. */
  private progressOf(topic: string, partition: number, generation: number): PartitionProgress {
    const key = `${topic}|${partition}`;
    const known = this.progress.get(key);
    if (known && known.generation === generation && !known.retired) return known;
    known?.retire();
    const fresh = new PartitionProgress(generation);
    this.progress.set(key, fresh);
    return fresh;
  }

  /**
   * The last commit, while the consumer still runs and owns its partitions. Says how many
   * partitions' finished offsets the broker did not take, and why (none: all taken).
   */
  private async commitAtStop(): Promise<{ partitions: number; how?: string }> {
    const committer = this.committer;
    if (!committer) return { partitions: 0 };
    const committed = await settleWithin(committer.commit(), FINAL_COMMIT_TIMEOUT_MS);
    if (committed.kind === 'done' && committed.value) return { partitions: 0 };
    return { partitions: committer.uncommitted, how: howItEnded(committed) };
  }

  /** One warn line for whatever the stop left to the next owner (`stop-leftovers.ts`). */
  private sayWhatWasLeft(timedOut: boolean, commit: { partitions: number; how?: string }): void {
    const why = this.options.dependencies?.problems() ?? [];
    if (timedOut) why.push(`records still running after ${this.options.shutdownTimeoutMs} ms`);
    const records = this.givenBack + this.records.size;
    const line = leftoversLine({ records, partitions: commit.partitions, commit: commit.how, why });
    if (line) this.logger.warn(line);
  }
}

/** Nest's RPC exception filter rethrows handler errors as plain objects; kafkajs wants an Error. */
function asError(failure: unknown): Error {
  if (failure instanceof Error) return failure;
  return new Error(`record handler failed: ${JSON.stringify(failure)}`);
}
