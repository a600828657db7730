import { Logger } from '@nestjs/common';
import { Server, type MessageHandler, type CustomTransportStrategy } from '@nestjs/microservices';
import type { Consumer, EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';
import pLimit, { type LimitFunction } from 'p-limit';
import { isObservable, lastValueFrom } from 'rxjs';
import type { ConsumerStatus } from './consumer-status';
import type { ConsumedRecord } from '../kafka/consumed-record';
import { CONSUMER_RETRIES, HEARTBEAT_INTERVAL_MS, MAX_WAIT_TIME_MS } from '../kafka/kafka-tuning';
import { OffsetCommitter } from './offset-committer';
import { PartitionProgress } from './partition-progress';
import { INBOUND_EVENT, RecordContext } from './record-context';
import { settleWithin } from './settle-within';

export interface KafkaBatchServerOptions {
  groupId: string;
  topics: string[];
  /** Records handled at once across all partitions of this instance; more wait to be admitted. */
  maxInFlight: number;
  /** How often finished offsets are committed (also after each batch, on rebalance and stop). */
  commitIntervalMs: number;
  /** How long a stop waits for in-flight records before abandoning them uncommitted. */
  shutdownTimeoutMs: number;
  /** Where a group without a committed offset for a partition starts reading it. */
  startFrom: 'latest' | 'earliest';
  /** How long the group waits for a silent member before its partitions go to another. */
  sessionTimeoutMs: number;
  /** Partitions whose batches are handled at once; `maxInFlight` still bounds the records. */
  partitionsConcurrently: number;
  /** Called when a stop begins, before waiting for in-flight records (flush pending batches). */
  beforeStop?: () => Promise<void>;
  /** Whether fetching a topic that does not exist may make the broker create it. */
  allowAutoTopicCreation: boolean;
  /** Consumption pauses while this says closed, and resumes when it opens. */
  gate?: { onChange(listener: (state: { open: boolean }) => void): void };
}

/**
 * After in-flight records (`shutdownTimeoutMs`), the stop allows these for its last steps: 4 s in
 * all, inside the 5 s margin `main.ts` gives the whole process beyond `SHUTDOWN_TIMEOUT_MS`.
 */
const FINAL_COMMIT_TIMEOUT_MS = 1_500;
const LEAVE_TIMEOUT_MS = 1_500;
const DISCONNECT_TIMEOUT_MS = 1_000;

/**
 * A Nest transport on kafkajs' `eachBatch`, chosen over the built-in Kafka transport because
 * mailbridge needs what that one does not give: records of a batch handled concurrently (so many
 * events can share one vendor request), offsets committed only up to the first record that has
 * not reached its outcome, and heartbeats sent while vendor calls are still in flight.
 *
 * Every configured topic routes to the one `@EventPattern(INBOUND_EVENT)` handler; the handler's
 * promise settles when the record's outcome is on Kafka, and a rejection leaves it uncommitted:
 * kafkajs then restarts the consumer and redelivers from the last commit.
 *
 * kafkajs' auto-commit is off: it would commit after every batch whatever its records became,
 * and on errors. Finished offsets are committed instead after each batch, on a timer, when a
 * rebalance starts and on stop, each commit checked against the broker (`OffsetCommitter`).
 *
 * A stop never calls `consumer.stop()` while work is left: kafkajs' commits are no-ops from that
 * moment. It pauses fetching, lets in-flight records finish (up to `shutdownTimeoutMs`), commits
 * them while the consumer still runs and owns its partitions, and only then stops, leaves and
 * disconnects, each step with its own time limit.
 */
export class KafkaBatchServer extends Server implements CustomTransportStrategy {
  override readonly propagatesEventHandlerErrors = true;
  protected override readonly logger = new Logger(KafkaBatchServer.name);
  private consumer?: Consumer;
  private committer?: OffsetCommitter;
  private readonly limit: LimitFunction;
  private readonly batches = new Set<Promise<void>>();
  /** Records parked on a timer, finishing after their batch returned. */
  private readonly parked = new Set<Promise<void>>();
  private readonly progress = new Map<string, PartitionProgress>();
  private commitTimer?: NodeJS.Timeout;
  /** Resolves when a stop gives up on in-flight records, so running batches return at once. */
  private readonly abandoned: Promise<void>;
  private abandon: () => void = () => undefined;
  private stopping = false;
  /** Set once the stop has handed over to kafkajs: a batch after that belongs to no one. */
  private stopped = false;

  constructor(
    private readonly kafka: Kafka,
    private readonly options: KafkaBatchServerOptions,
    private readonly consumerStatus: ConsumerStatus,
  ) {
    super();
    this.limit = pLimit(options.maxInFlight);
    this.abandoned = new Promise((resolve) => (this.abandon = resolve));
  }

  listen(callback: (error?: unknown) => void): void {
    this.start().then(() => callback(), callback);
  }

  async close(): Promise<void> {
    const consumer = this.consumer;
    if (!consumer || this.stopping) return;
    this.stopping = true;
    this.consumerStatus.markDown('consumer is stopping');
    clearInterval(this.commitTimer);
    this.pauseAll(consumer);
    // Send what is still gathering now rather than after its linger; not awaited, because the
    // records waiting on it are what the drain below waits for.
    this.options
      .beforeStop?.()
      .catch((e: Error) => this.logger.warn(`flush at stop: ${e.message}`));
    const drained = await settleWithin(this.drain(), this.options.shutdownTimeoutMs);
    if (drained.kind === 'timeout') {
      this.logger.warn(
        'in-flight records abandoned uncommitted at shutdown; they will be redelivered',
      );
      this.abandon();
    }
    await this.commitAtStop();
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

  /**
   * Resolves once no batch runs and no record is parked. A record can park while the stop waits
   * (its batch was running), so the sets are looked at again until both are empty.
   */
  private async drain(): Promise<void> {
    while (this.batches.size > 0 || this.parked.size > 0) {
      await Promise.all([...this.batches, ...this.parked]);
    }
  }

  on(): never {
    throw new Error('KafkaBatchServer does not expose transport events; see ConsumerStatus');
  }

  unwrap<T>(): T {
    return this.consumer as T;
  }

  private async start(): Promise<void> {
    const consumer = this.kafka.consumer({
      groupId: this.options.groupId,
      sessionTimeout: this.options.sessionTimeoutMs,
      heartbeatInterval: HEARTBEAT_INTERVAL_MS,
      maxWaitTimeInMs: MAX_WAIT_TIME_MS,
      allowAutoTopicCreation: this.options.allowAutoTopicCreation,
      // A crash during a stop must not bring the consumer back.
      retry: { retries: CONSUMER_RETRIES, restartOnFailure: () => Promise.resolve(!this.stopping) },
    });
    const committer = new OffsetCommitter(consumer, this.logger);
    this.consumer = consumer;
    this.committer = committer;
    this.watch(consumer, committer);
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
      eachBatch: (payload) => this.processBatch(payload, committer),
    });
    if (this.stopping) return;
    this.logger.log(`consuming ${this.options.topics.join(', ')} as group ${this.options.groupId}`);
  }

  private watch(consumer: Consumer, committer: OffsetCommitter): void {
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
      committer.assign(payload.memberAssignment);
      this.consumerStatus.assigned(payload.memberAssignment);
      if (!this.stopping) this.consumerStatus.markJoined();
    });
    consumer.on(consumer.events.REBALANCING, () => void committer.commit());
    this.options.gate?.onChange(({ open }) => {
      if (this.stopping) return;
      const topics = this.options.topics.map((topic) => ({ topic }));
      if (open) consumer.resume(topics);
      else consumer.pause(topics);
    });
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

  private async processBatch(payload: EachBatchPayload, committer: OffsetCommitter): Promise<void> {
    // A batch after the stop handed over (kafkajs rejoined behind our back): end that consumer.
    if (this.stopped)
      throw Object.assign(new Error('the transport has stopped'), { retriable: false });
    // While stopping, start nothing new: unresolved, the records go to the partition's next owner.
    if (this.stopping) return;
    const batch = this.runBatch(payload, committer);
    this.batches.add(batch);
    try {
      await batch;
    } finally {
      this.batches.delete(batch);
    }
  }

  private async runBatch(payload: EachBatchPayload, committer: OffsetCommitter): Promise<void> {
    const { batch } = payload;
    const { topic, partition, messages } = batch;
    const handler = this.getHandlerByPattern(INBOUND_EVENT);
    if (!handler) throw new Error(`no handler registered for ${INBOUND_EVENT}`);
    if (messages.length === 0) return;
    const progress = this.progressOf(topic, partition, committer.generation);
    progress.add(messages.map((m) => m.offset));
    this.consumerStatus.fetched(
      topic,
      partition,
      messages[0].offset,
      messages[messages.length - 1].offset,
    );
    let failure: unknown;
    let skipped = false;
    const heartbeats = setInterval(() => {
      payload.heartbeat().catch((error: Error) => this.logger.debug(`heartbeat: ${error.message}`));
    }, HEARTBEAT_INTERVAL_MS);
    try {
      const work = Promise.all(
        messages.map((message) =>
          this.limit(async () => {
            // After a failure, a stop or a rebalance, start nothing new: it will be redelivered.
            if (
              failure !== undefined ||
              this.stopping ||
              !payload.isRunning() ||
              payload.isStale()
            ) {
              skipped = true;
              return;
            }
            const record = this.handle(handler, toInbound(topic, partition, message), progress);
            const first = await Promise.race([record.finished, record.parked]);
            if (first.kind === 'failed') failure ??= first.error;
            if (first.kind !== 'parked') return;
            this.trackParked(topic, partition, record.finished);
            // A parked record gives its slot back only while few are parked: they hold memory.
            if (this.parked.size > this.options.maxInFlight) await record.finished;
          }),
        ),
      );
      await Promise.race([work, this.abandoned]);
    } finally {
      clearInterval(heartbeats);
    }
    // A failure while stopping is left for the next owner; throwing would end the consumer
    // before the stop commits what did finish.
    if (failure !== undefined && !this.stopping) {
      await committer.commit();
      throw asError(failure);
    }
    // Every record is done or parked: fetch on past the parked ones (their offsets stay
    // uncommitted until they finish, see PartitionProgress).
    if (!skipped && !this.stopping) payload.resolveOffset(messages[messages.length - 1].offset);
    // Results of this batch are on Kafka: commit them now rather than at the next tick, so that
    // a crash or a rebalance repeats as few results as possible. The stop commits for itself.
    if (!this.stopping) void committer.commit();
  }

  /**
   * Runs one record to its outcome. `finished` settles when it has one (or failed); `parked`
   * when the handler says it waits on a timer. A parked record goes on in the background: when
   * it finishes it offers its offset like any other, and when it fails its partition is rewound
   * to it, since the batch that would have thrown is long gone.
   */
  private handle(
    handler: MessageHandler,
    inbound: ConsumedRecord,
    progress: PartitionProgress,
  ): { finished: Promise<RecordEnd>; parked: Promise<RecordEnd> } {
    const { topic, partition, offset } = inbound;
    let isParked = false;
    let park: () => void = () => undefined;
    const parked = new Promise<RecordEnd>((resolve) => {
      park = () => {
        isParked = true;
        resolve({ kind: 'parked' });
      };
    });
    const run = async (): Promise<void> => {
      const outcome: unknown = await handler(inbound, new RecordContext(inbound, park));
      if (isObservable(outcome)) await lastValueFrom(outcome, { defaultValue: undefined });
    };
    const finished = run().then(
      (): RecordEnd => {
        const next = progress.complete(offset);
        this.consumerStatus.finished(topic, partition, next);
        if (next !== undefined) {
          this.committer?.offer({ topic, partition, offset: next }, progress.generation);
        }
        return { kind: 'finished' };
      },
      (error: unknown): RecordEnd => {
        if (isParked) this.rewind(inbound, progress, error);
        return { kind: 'failed', error };
      },
    );
    return { finished, parked };
  }

  /** Keeps a parked record in view: a stop waits for it, and liveness does not count it stalled. */
  private trackParked(topic: string, partition: number, finished: Promise<RecordEnd>): void {
    const done = finished.then(() => {
      this.parked.delete(done);
      this.consumerStatus.parked(topic, partition, -1);
    });
    this.parked.add(done);
    this.consumerStatus.parked(topic, partition, +1);
  }

  /** A parked record failed: fetch its partition again from it, as a restart would. */
  private rewind(inbound: ConsumedRecord, progress: PartitionProgress, error: unknown): void {
    const { topic, partition, offset } = inbound;
    if (progress.retired || this.stopping) return;
    progress.retire();
    this.progress.delete(`${topic}|${partition}`);
    this.logger.warn(
      `record ${topic}/${partition}@${offset} failed after waiting on its window (${asError(error).message}); fetching the partition again from it`,
    );
    try {
      this.consumer?.seek({ topic, partition, offset });
    } catch (seekError) {
      this.logger.warn(`rewind of ${topic}/${partition}: ${(seekError as Error).message}`);
    }
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

  /** The last commit, while the consumer still runs and owns its partitions. */
  private async commitAtStop(): Promise<void> {
    const committer = this.committer;
    if (!committer) return;
    const committed = await settleWithin(committer.commit(), FINAL_COMMIT_TIMEOUT_MS);
    if (committed.kind === 'done' && committed.value) return;
    this.logger.warn(
      `offsets of ${committer.uncommitted} partition(s) not committed at stop (${howItEnded(committed)}); ` +
        'their finished records will be redelivered and their results published again',
    );
  }

  private pauseAll(consumer: Consumer): void {
    try {
      consumer.pause(this.options.topics.map((topic) => ({ topic })));
    } catch (error) {
      // Not running yet (a stop during start): there is nothing to fetch anyway.
      this.logger.debug(`pause at stop: ${(error as Error).message}`);
    }
  }
}

type RecordEnd = { kind: 'finished' } | { kind: 'parked' } | { kind: 'failed'; error: unknown };

function howItEnded(settled: { kind: string; error?: Error; value?: unknown }): string {
  if (settled.kind === 'timeout') return 'timed out';
  if (settled.kind === 'failed') return settled.error?.message ?? 'failed';
  return 'not acknowledged by the broker';
}

/** Nest's RPC exception filter rethrows handler errors as plain objects; kafkajs wants an Error. */
function asError(failure: unknown): Error {
  if (failure instanceof Error) return failure;
  return new Error(`record handler failed: ${JSON.stringify(failure)}`);
}

function toInbound(topic: string, partition: number, message: KafkaMessage): ConsumedRecord {
  return {
    topic,
    partition,
    offset: message.offset,
    timestamp: message.timestamp,
    key: message.key,
    value: message.value,
    headers: message.headers ?? {},
  };
}
