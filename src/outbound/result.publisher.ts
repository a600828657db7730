import type { Context } from '@opentelemetry/api';
import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import {
  CompressionTypes,
  Kafka,
  Partitioners,
  type IHeaders,
  type Message,
  type Producer,
} from 'kafkajs';
import { AppConfig } from '../config/app-config';
import type { ActionOutcome } from '../contracts/action-outcome';
import type { EventEnvelope } from '../contracts/event-envelope';
import { encodeResult } from './result-encoding';
import { resultFor, resultTopic } from './result.factory';
import type { ConsumedRecord } from '../kafka/consumed-record';
import { PRODUCER_MAX_IN_FLIGHT_REQUESTS, PRODUCER_RETRY } from '../kafka/kafka-tuning';
import {
  buildDeadLetter,
  formAfterRefusal,
  isMessageTooLarge,
  type DeadLetterRecord,
} from './dead-letter';
import { DeadLetterLimit } from './dead-letter-limit';
import { Tracing } from '../tracing/tracing';

/** A record as it goes on Kafka: the value already encoded, `content-type` among the headers. */
export interface OutboundRecord {
  key: Buffer | string | null;
  value: string;
  headers: IHeaders;
}

const MAX_RECORDS_PER_FLUSH = 2_000;
/**
 * Records per produce request, in bytes: half the broker's default `max.message.bytes` (1 MiB
 * per partition batch), so that no partition's batch reaches it even if every record of the
 * request goes to that one partition. A vendor request's results (about 1,000) fit one or two.
 */
const MAX_BYTES_PER_SEND = 512 * 1024;
/** A record's framing beyond its key, value and headers (lengths, deltas, attributes), at most. */
const RECORD_OVERHEAD_BYTES = 64;

/** One publishing call's records: it settles when the last of them is acknowledged, or one fails. */
interface Completion {
  left: number;
  resolve: () => void;
  reject: (error: unknown) => void;
}

interface QueuedRecord {
  topic: string;
  message: Message;
  bytes: number;
  done: Completion;
  /** Ends the record's producer span, once it is acknowledged or has failed. */
  end?: (error?: unknown) => void;
}

/** One action's result to publish: the event it answers, its template, its outcome, its record. */
export interface ResultToPublish {
  event: Pick<EventEnvelope, 'id' | 'type'>;
  template: string;
  outcome: ActionOutcome;
  source: { key: Buffer | null; headers: IHeaders; trace?: Context };
}

/**
 * The only code that produces to Kafka. Every send is awaited and acknowledged by all in-sync
 * replicas; the idempotent producer keeps broker-side retries from writing duplicates.
 */
@Injectable()
export class ResultPublisher implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(ResultPublisher.name);
  private readonly producer: Producer;
  private connected?: Promise<void>;
  private readonly queue: QueuedRecord[] = [];
  private flushScheduled = false;
  private batchUnderWay = false;
  /** The producer call under way, or the last one; the next starts once it has settled. */
  private produced: Promise<unknown> = Promise.resolve();
  private readonly deadLetterLimit: DeadLetterLimit;
  /** When `timeText` was read (`resultTime`). */
  private timeAt = 0;
  private timeText = '';

  constructor(
    @Inject(Kafka) kafka: Kafka,
    private readonly config: AppConfig,
    private readonly tracing: Tracing,
  ) {
    this.producer = kafka.producer({
      idempotent: true,
      maxInFlightRequests: PRODUCER_MAX_IN_FLIGHT_REQUESTS,
      createPartitioner: Partitioners.DefaultPartitioner,
      // Producing to a missing topic must not make a broker with auto-creation on create it.
      allowAutoTopicCreation: config.kafka.createTopics,
      retry: PRODUCER_RETRY,
    });
    this.deadLetterLimit = new DeadLetterLimit(kafka, config.topics.deadLetter, this.logger);
  }

  /**
   * Publishes the result event of one action's outcome, a CloudEvent in `RESULT_EVENT_MODE`, on
   * the topic for its kind, keyed and traced like the event it answers.
   */
  publishResult(
    event: Pick<EventEnvelope, 'id' | 'type'>,
    template: string,
    outcome: ActionOutcome,
    source: { key: Buffer | null; headers: IHeaders; trace?: Context },
  ): Promise<void> {
    // Every action publishes its own result this way, a vendor request's thousand in one turn:
    // queued straight from here, with no list of one around it.
    return new Promise((resolve, reject) => {
      const done: Completion = { left: 1, resolve, reject };
      this.queueResult({ event, template, outcome, source }, this.resultTime(), done);
      this.scheduleFlush();
    });
  }

  /**
   * {@link publishResult} for many actions at once: one promise for all
   * of them, which resolves once every result is acknowledged and rejects if any is not (they
   * travel in the same produce requests).
   */
  publishResults(results: readonly ResultToPublish[]): Promise<void> {
    if (results.length === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const done: Completion = { left: results.length, resolve, reject };
      const time = this.resultTime();
      for (const result of results) this.queueResult(result, time, done);
      this.scheduleFlush();
    });
  }

  /**
   * Publishes one record. Records published in the same turn of the event loop (the results of
   * one vendor request resolve together), or while the last produce request is under way, travel
   * in one produce request.
   */
  publish(topic: string, record: OutboundRecord): Promise<void> {
    return new Promise((resolve, reject) => {
      const message: Message = { key: record.key, value: record.value, headers: record.headers };
      this.queue.push({
        topic,
        message,
        bytes: recordBytes(record),
        done: { left: 1, resolve, reject },
      });
      this.scheduleFlush();
    });
  }

  /** Encodes a result and queues its record, traced; `done` hears when it is acknowledged. */
  private queueResult(
    { event, template, outcome, source }: ResultToPublish,
    time: string,
    done: Completion,
  ): void {
    const { mode, source: resultSource } = this.config.results;
    const topic = resultTopic(outcome, this.config.topics);
    const encoded = encodeResult(resultFor(event, template, outcome, time, resultSource), mode);
    const send = this.tracing.produce(source.trace, topic, {
      ...source.headers,
      ...encoded.headers,
    });
    const message = { key: source.key, value: encoded.value, headers: send.headers };
    this.queue.push({ topic, message, bytes: recordBytes(message), done, end: send.end });
  }

  /** The `time` of a result published now: one text per millisecond, not a Date per result. */
  private resultTime(): string {
    const now = Date.now();
    if (now !== this.timeAt) {
      this.timeAt = now;
      this.timeText = new Date(now).toISOString();
    }
    return this.timeText;
  }

  private scheduleFlush(): void {
    if (this.queue.length >= MAX_RECORDS_PER_FLUSH) this.flush();
    else if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    }
  }

  /**
   * Writes the original record, untouched, plus headers saying where it came from and why; when
   * that would not fit the dead-letter topic, a reference to it instead (see `buildDeadLetter`).
   * A size refusal by the broker is answered with a smaller form, never with the same record
   * again; any other failure rejects, and the caller tries again later.
   */
  async deadLetter(message: ConsumedRecord, error: Error & { code?: string }): Promise<void> {
    await this.connect();
    const topic = this.config.topics.deadLetter;
    const consumerGroup = this.config.kafka.groupId;
    let record = buildDeadLetter(message, error, {
      limitBytes: await this.deadLetterLimit.get(),
      consumerGroup,
    });
    for (;;) {
      try {
        const messages = [record.message];
        await this.serially(() => this.producer.send({ topic, acks: -1, messages }));
        break;
      } catch (sendError) {
        if (!isMessageTooLarge(sendError)) throw sendError;
        const next = formAfterRefusal(record.form);
        if (next === undefined) throw refusedEvenMinimal(topic, record, sendError);
        const limitBytes = await this.deadLetterLimit.refresh();
        record = buildDeadLetter(message, error, {
          limitBytes,
          consumerGroup,
          atLeast: next,
          reason: 'refused-by-broker',
        });
      }
    }
    if (record.form !== 'original') {
      this.logger.warn(
        `dead letter of ${message.topic}/${message.partition}@${message.offset} sent as ` +
          `${record.form}: the original would not fit ${topic}`,
      );
    }
  }

  /**
   * Connects, and learns the dead-letter topic's limit, in the background: a broker that cannot be
   * reached must not keep the HTTP server (and so `/health/live`) from starting. Every publish
   * waits for the connection itself.
   */
  onModuleInit(): void {
    void this.deadLetterLimit.get();
    this.connect().catch((error: Error) =>
      this.logger.warn(`producer not connected yet, will retry on publish: ${error.message}`),
    );
  }

  /** Runs after the consumer stopped: Nest closes transports before this hook. */
  async onApplicationShutdown(): Promise<void> {
    if (!this.connected) return;
    await this.producer.disconnect();
    this.logger.log('producer disconnected');
  }

  private flush(): void {
    this.flushScheduled = false;
    // Records published while a request is under way wait for it and go together in the next.
    if (this.batchUnderWay || this.queue.length === 0) return;
    // One produce request at a time, kept under half the broker's default max message size
    // (1 MiB per partition batch), which a whole vendor request's worth of results can pass.
    let count = 0;
    let bytes = 0;
    while (count < this.queue.length) {
      const next = this.queue[count].bytes;
      if (count > 0 && bytes + next > MAX_BYTES_PER_SEND) break;
      bytes += next;
      count += 1;
    }
    this.batchUnderWay = true;
    void this.send(this.queue.splice(0, count)).finally(() => {
      this.batchUnderWay = false;
      this.flush();
    });
  }

  private async send(items: QueuedRecord[]): Promise<void> {
    const byTopic = new Map<string, Message[]>();
    for (const { topic, message } of items) {
      const messages = byTopic.get(topic) ?? [];
      messages.push(message);
      byTopic.set(topic, messages);
    }
    const topicMessages = [...byTopic].map(([topic, messages]) => ({ topic, messages }));
    try {
      await this.connect();
      await this.serially(() =>
        this.producer.sendBatch({ acks: -1, compression: CompressionTypes.None, topicMessages }),
      );
    } catch (error) {
      for (const item of items) {
        item.end?.(error);
        item.done.reject(error);
      }
      return;
    }
    for (const item of items) {
      item.end?.();
      if (--item.done.left === 0) item.done.resolve();
    }
  }

  /**
   * Runs producer calls one at a time, in the order they were asked for. kafkajs hands the
   * sequence numbers of a failed produce request back for its retry; a second call under way on
   * the same idempotent producer can take them first. Where the failed request was written after
   * all (one partition refused and the others appended, or the answer lost), the broker then takes
   * the second call's records, as many on a partition as the first's, for a duplicate of those
   * and acknowledges them without writing them: results lost. One call at a time leaves the
   * numbers to the retry they were handed back for. kafkajs already sends one request at a time
   * to each broker of an idempotent producer, so little is given up.
   */
  private serially<T>(call: () => Promise<T>): Promise<T> {
    const next = this.produced.then(call);
    this.produced = next.catch(() => undefined);
    return next;
  }

  private connect(): Promise<void> {
    this.connected ??= this.producer.connect().catch((error: unknown) => {
      this.connected = undefined;
      throw error;
    });
    return this.connected;
  }
}

/** The dead-letter topic refuses even the smallest dead letter: its limit is a configuration fault. */
function refusedEvenMinimal(topic: string, record: DeadLetterRecord, cause: unknown): Error {
  return Object.assign(
    new Error(
      `${topic} refuses even a ${record.estimatedBytes}-byte dead letter; raise its max.message.bytes`,
      { cause },
    ),
    { retriable: true },
  );
}

/** What a record weighs in a record batch: key, value, header names and values, framing. */
function recordBytes(record: OutboundRecord): number {
  let bytes = Buffer.byteLength(record.value) + RECORD_OVERHEAD_BYTES;
  if (record.key !== null) bytes += Buffer.byteLength(record.key);
  for (const name in record.headers) {
    const value = record.headers[name];
    bytes += Buffer.byteLength(name);
    if (value === undefined) continue;
    if (!Array.isArray(value)) bytes += Buffer.byteLength(value);
    else for (const item of value) bytes += Buffer.byteLength(item);
  }
  return bytes;
}
