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
const MAX_BYTES_PER_SEND = 256 * 1024;

interface QueuedRecord {
  topic: string;
  message: Message;
  bytes: number;
  resolve: () => void;
  reject: (error: unknown) => void;
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
  private readonly deadLetterLimit: DeadLetterLimit;

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
    const { mode, source: resultSource } = this.config.results;
    const result = resultFor(event, template, outcome, new Date(), resultSource);
    const topic = resultTopic(outcome, this.config.topics);
    const encoded = encodeResult(result, mode);
    const send = this.tracing.produce(source.trace, topic, {
      ...source.headers,
      ...encoded.headers,
    });
    return this.publish(topic, {
      key: source.key,
      value: encoded.value,
      headers: send.headers,
    }).then(
      () => send.end(),
      (error: unknown) => {
        send.end(error);
        throw error;
      },
    );
  }

  /**
   * Publishes one record. Records published in the same turn of the event loop (the results of
   * one vendor request resolve together) travel in one produce request.
   */
  publish(topic: string, record: OutboundRecord): Promise<void> {
    return new Promise((resolve, reject) => {
      const message: Message = { key: record.key, value: record.value, headers: record.headers };
      const bytes = Buffer.byteLength(record.value) + 512; // headers and framing, roughly
      this.queue.push({ topic, message, bytes, resolve, reject });
      if (this.queue.length >= MAX_RECORDS_PER_FLUSH) this.flush();
      else if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
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
        await this.producer.send({ topic, acks: -1, messages: [record.message] });
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
    const items = this.queue.splice(0);
    // One produce request per chunk, kept well under the broker's default max message size
    // (1 MiB per partition batch), which a whole vendor request's worth of results can pass.
    let chunk: QueuedRecord[] = [];
    let bytes = 0;
    for (const item of items) {
      if (chunk.length > 0 && bytes + item.bytes > MAX_BYTES_PER_SEND) {
        this.send(chunk);
        chunk = [];
        bytes = 0;
      }
      chunk.push(item);
      bytes += item.bytes;
    }
    if (chunk.length > 0) this.send(chunk);
  }

  private send(items: QueuedRecord[]): void {
    const byTopic = new Map<string, Message[]>();
    for (const { topic, message } of items) {
      const messages = byTopic.get(topic) ?? [];
      messages.push(message);
      byTopic.set(topic, messages);
    }
    this.connect()
      .then(() =>
        this.producer.sendBatch({
          acks: -1,
          compression: CompressionTypes.None,
          topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })),
        }),
      )
      .then(
        () => items.forEach((i) => i.resolve()),
        (error: unknown) => items.forEach((i) => i.reject(error)),
      );
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
