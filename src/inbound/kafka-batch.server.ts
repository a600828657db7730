import { Logger } from '@nestjs/common';
import { BaseRpcContext, Server, type CustomTransportStrategy } from '@nestjs/microservices';
import type { Consumer, EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';
import pLimit, { type LimitFunction } from 'p-limit';
import { isObservable, lastValueFrom } from 'rxjs';
import type { ConsumerStatus } from './consumer-status';
import { INBOUND_EVENT, type InboundMessage } from './inbound-message';
import { PartitionProgress } from './partition-progress';

export interface KafkaBatchServerOptions {
  groupId: string;
  topics: string[];
  /** Records handled at once across all partitions of this instance; more wait to be admitted. */
  maxInFlight: number;
  /** How often finished offsets are committed (also on rebalance and stop). */
  commitIntervalMs: number;
  /** How long a stop waits for in-flight records before abandoning them uncommitted. */
  shutdownTimeoutMs: number;
  /** Called when a stop begins, before waiting for in-flight records (flush pending batches). */
  beforeStop?: () => Promise<void>;
  /** Consumption pauses while this says closed, and resumes when it opens. */
  gate?: { onChange(listener: (state: { open: boolean }) => void): void };
}

const HEARTBEAT_INTERVAL_MS = 3_000;
const SESSION_TIMEOUT_MS = 30_000;

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
 * kafkajs' auto-commit is off: it would commit after every batch, and on errors. Instead the
 * offsets of finished records are committed on a timer, when a rebalance starts and on stop,
 * which keeps commit traffic low and makes "finished but not yet committed" a real, testable
 * state (a crash there redelivers, and the idempotency store answers from what it recorded).
 */
export class KafkaBatchServer extends Server implements CustomTransportStrategy {
  override readonly propagatesEventHandlerErrors = true;
  protected override readonly logger = new Logger(KafkaBatchServer.name);
  private consumer?: Consumer;
  private readonly limit: LimitFunction;
  /** Next offset to commit per `topic|partition`, for records that reached their outcome. */
  private readonly pending = new Map<
    string,
    { topic: string; partition: number; offset: string }
  >();
  private commitTimer?: NodeJS.Timeout;
  /** Resolves when a stop gives up on in-flight records, so running batches return at once. */
  private readonly abandoned: Promise<void>;
  private abandon: () => void = () => undefined;
  private stopping = false;

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
    await this.commit(consumer);
    // Send what is still gathering now rather than after its linger; not awaited, because the
    // records waiting on it are what consumer.stop() waits for.
    this.options
      .beforeStop?.()
      .catch((e: Error) => this.logger.warn(`flush at stop: ${e.message}`));
    const stopped = consumer.stop(); // resolves once every running batch has returned
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), this.options.shutdownTimeoutMs);
    });
    if ((await Promise.race([stopped, timedOut])) === 'timeout') {
      this.logger.warn(
        'in-flight records abandoned uncommitted at shutdown; they will be redelivered',
      );
      this.abandon();
      await stopped;
    }
    clearTimeout(timer);
    await consumer.disconnect();
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
    const consumer = this.kafka.consumer({
      groupId: this.options.groupId,
      sessionTimeout: SESSION_TIMEOUT_MS,
      heartbeatInterval: HEARTBEAT_INTERVAL_MS,
    });
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
      // Offsets of partitions given away are no longer ours to commit.
      for (const [key, o] of this.pending) {
        if (!payload.memberAssignment[o.topic]?.includes(o.partition)) this.pending.delete(key);
      }
      this.consumerStatus.markJoined();
    });
    consumer.on(consumer.events.REBALANCING, () => void this.commit(consumer));
    this.options.gate?.onChange(({ open }) => {
      if (this.stopping) return;
      const topics = this.options.topics.map((topic) => ({ topic }));
      if (open) consumer.resume(topics);
      else consumer.pause(topics);
    });
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      this.consumerStatus.markDown(`consumer crashed: ${payload.error.name}`);
      this.logger.error(
        `consumer crashed (restart: ${String(payload.restart)}): ${payload.error.message}`,
      );
    });
    this.consumer = consumer;
    await consumer.connect();
    await consumer.subscribe({ topics: this.options.topics, fromBeginning: true });
    this.commitTimer = setInterval(() => void this.commit(consumer), this.options.commitIntervalMs);
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: 16,
      eachBatch: (payload) => this.processBatch(payload),
    });
    this.logger.log(`consuming ${this.options.topics.join(', ')} as group ${this.options.groupId}`);
  }

  private async processBatch(payload: EachBatchPayload): Promise<void> {
    const { batch } = payload;
    const handler = this.getHandlerByPattern(INBOUND_EVENT);
    if (!handler) throw new Error(`no handler registered for ${INBOUND_EVENT}`);
    const progress = new PartitionProgress(batch.messages.map((m) => m.offset));
    let failure: unknown;
    const heartbeats = setInterval(() => {
      payload.heartbeat().catch((error: Error) => this.logger.debug(`heartbeat: ${error.message}`));
    }, HEARTBEAT_INTERVAL_MS);
    try {
      const work = Promise.all(
        batch.messages.map((message, index) =>
          this.limit(async () => {
            // After a failure, a stop or a rebalance, start nothing new: it will be redelivered.
            if (failure !== undefined || !payload.isRunning() || payload.isStale()) return;
            try {
              const inbound = toInbound(batch.topic, batch.partition, message);
              const outcome: unknown = await handler(inbound, new BaseRpcContext([inbound]));
              if (isObservable(outcome)) await lastValueFrom(outcome, { defaultValue: undefined });
            } catch (error) {
              failure ??= error;
              return;
            }
            const committable = progress.complete(index);
            if (committable !== undefined) {
              payload.resolveOffset(committable);
              this.pending.set(`${batch.topic}|${batch.partition}`, {
                topic: batch.topic,
                partition: batch.partition,
                offset: (BigInt(committable) + 1n).toString(),
              });
            }
          }),
        ),
      );
      await Promise.race([work, this.abandoned]);
    } finally {
      clearInterval(heartbeats);
    }
    // While stopping, the group is still ours only until this batch returns: commit now.
    if (this.stopping) await this.commit(this.consumer);
    if (failure !== undefined) {
      await this.commit(this.consumer);
      throw asError(failure);
    }
  }

  /** Commits the offsets of finished records; a failure is retried on the next tick. */
  private async commit(consumer: Consumer | undefined): Promise<void> {
    if (!consumer || this.pending.size === 0) return;
    const offsets = [...this.pending.values()];
    this.pending.clear();
    try {
      await consumer.commitOffsets(offsets);
    } catch (error) {
      for (const o of offsets) {
        const key = `${o.topic}|${o.partition}`;
        if (!this.pending.has(key)) this.pending.set(key, o);
      }
      this.logger.warn(`offset commit failed, will retry: ${(error as Error).message}`);
    }
  }
}

/** Nest's RPC exception filter rethrows handler errors as plain objects; kafkajs wants an Error. */
function asError(failure: unknown): Error {
  if (failure instanceof Error) return failure;
  return new Error(`record handler failed: ${JSON.stringify(failure)}`);
}

function toInbound(topic: string, partition: number, message: KafkaMessage): InboundMessage {
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
