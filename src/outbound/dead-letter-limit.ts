import type { Logger } from '@nestjs/common';
import { ConfigResourceTypes, type Admin, type Kafka } from 'kafkajs';
import { KAFKA_DEFAULT_MAX_MESSAGE_BYTES } from './dead-letter';

/**
 * The largest record the dead-letter topic accepts, as the cluster says: the topic's
 * `max.message.bytes`, else (the topic does not exist yet, or may not be described) the broker's
 * `message.max.bytes`, else Kafka's default. Read once and kept; read again when the broker
 * refuses a dead letter as too large, since a topic's limit can be changed at any time.
 */
export class DeadLetterLimit {
  private current?: Promise<number>;
  private refreshing?: Promise<number>;

  constructor(
    private readonly kafka: Kafka,
    private readonly topic: string,
    private readonly logger: Logger,
  ) {}

  get(): Promise<number> {
    this.current ??= this.read();
    return this.current;
  }

  /** Reads the limit again; callers while a read is under way share it. */
  refresh(): Promise<number> {
    if (this.refreshing) return this.refreshing;
    const previous = this.current;
    const next = this.read();
    this.current = next;
    this.refreshing = next.finally(() => (this.refreshing = undefined));
    void Promise.all([previous, next]).then(([old, limit]) => {
      if (old !== undefined && old !== limit) {
        this.logger.log(`dead-letter topic ${this.topic} limit ${old} → ${limit} bytes`);
      }
    });
    return this.refreshing;
  }

  private async read(): Promise<number> {
    // Few retries: a broker that cannot be reached fails the dead letter's send anyway.
    const admin = this.kafka.admin({ retry: { retries: 2 } });
    try {
      await admin.connect();
      const limit =
        (await this.describe(admin, ConfigResourceTypes.TOPIC, this.topic, 'max.message.bytes')) ??
        (await this.brokerLimit(admin));
      if (limit !== undefined) return limit;
    } catch (error) {
      this.logger.warn(`dead-letter topic limit unknown: ${(error as Error).message}`);
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
    return KAFKA_DEFAULT_MAX_MESSAGE_BYTES;
  }

  private async brokerLimit(admin: Admin): Promise<number | undefined> {
    const { brokers, controller } = await admin.describeCluster();
    const id = controller ?? brokers[0]?.nodeId;
    if (id === undefined) return undefined;
    return this.describe(admin, ConfigResourceTypes.BROKER, String(id), 'message.max.bytes');
  }

  /** One numeric config of one resource; undefined when the broker does not tell. */
  private async describe(
    admin: Admin,
    type: ConfigResourceTypes,
    name: string,
    configName: string,
  ): Promise<number | undefined> {
    try {
      const { resources } = await admin.describeConfigs({
        includeSynonyms: false,
        resources: [{ type, name, configNames: [configName] }],
      });
      const entry = resources[0]?.configEntries.find((e) => e.configName === configName);
      const value = Number(entry?.configValue);
      return Number.isSafeInteger(value) && value > 0 ? value : undefined;
    } catch (error) {
      this.logger.debug(`describing ${configName} of ${name}: ${(error as Error).message}`);
      return undefined;
    }
  }
}
