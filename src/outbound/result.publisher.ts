import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import { CompressionTypes, Kafka, Partitioners, type IHeaders, type Producer } from 'kafkajs';
import { AppConfig } from '../config/app-config';
import type { InboundMessage } from '../inbound/inbound-message';

export interface OutboundRecord {
  key: Buffer | string | null;
  value: object;
  headers?: IHeaders;
}

/** Headers copied from a source event to everything published on its behalf. */
const PROPAGATED_HEADERS = ['traceparent', 'tracestate', 'correlation-id'];

/**
 * The only code that produces to Kafka. Every send is awaited and acknowledged by all in-sync
 * replicas; the idempotent producer keeps broker-side retries from writing duplicates.
 */
@Injectable()
export class ResultPublisher implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(ResultPublisher.name);
  private readonly producer: Producer;
  private connected?: Promise<void>;

  constructor(
    @Inject(Kafka) kafka: Kafka,
    private readonly config: AppConfig,
  ) {
    // Unbounded retries are what idempotence needs; a broker outage then costs time, and the
    // records waiting on it stay uncommitted.
    this.producer = kafka.producer({
      idempotent: true,
      maxInFlightRequests: 5,
      createPartitioner: Partitioners.DefaultPartitioner,
      retry: { retries: Number.MAX_SAFE_INTEGER, maxRetryTime: 10_000 },
    });
  }

  async publish(topic: string, records: OutboundRecord[]): Promise<void> {
    await this.connect();
    await this.producer.send({
      topic,
      acks: -1,
      compression: CompressionTypes.None,
      messages: records.map((r) => ({
        key: r.key,
        value: JSON.stringify(r.value),
        headers: { 'content-type': 'application/json', ...r.headers },
      })),
    });
  }

  /** Writes the original record, untouched, plus headers saying where it came from and why. */
  async deadLetter(message: InboundMessage, error: Error & { code?: string }): Promise<void> {
    await this.connect();
    await this.producer.send({
      topic: this.config.topics.deadLetter,
      acks: -1,
      messages: [
        {
          key: message.key,
          value: message.value,
          headers: {
            ...message.headers,
            'dlq-original-topic': message.topic,
            'dlq-original-partition': String(message.partition),
            'dlq-original-offset': message.offset,
            'dlq-original-timestamp': message.timestamp,
            'dlq-error-class': error.name,
            ...(error.code ? { 'dlq-error-code': error.code } : {}),
            'dlq-error-message': error.message.slice(0, 1000),
          },
        },
      ],
    });
  }

  /** Headers to carry from the source event to its results. */
  static propagatedHeaders(message: InboundMessage): IHeaders {
    const headers: IHeaders = {};
    for (const name of PROPAGATED_HEADERS) {
      const value = message.headers[name];
      if (value !== undefined) headers[name] = value;
    }
    return headers;
  }

  /** Connect before consuming starts, so the first outcome does not wait for it. */
  async onModuleInit(): Promise<void> {
    await this.connect();
  }

  /** Runs after the consumer stopped: Nest closes transports before this hook. */
  async onApplicationShutdown(): Promise<void> {
    if (!this.connected) return;
    await this.producer.disconnect();
    this.logger.log('producer disconnected');
  }

  private connect(): Promise<void> {
    this.connected ??= this.producer.connect().catch((error: unknown) => {
      this.connected = undefined;
      throw error;
    });
    return this.connected;
  }
}
