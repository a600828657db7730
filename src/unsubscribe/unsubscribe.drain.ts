import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { unsubscribedRecord } from '../outbound/unsubscribed.factory';
import { ResultPublisher } from '../outbound/result.publisher';
import { UnsubscribeMetrics } from './unsubscribe.metrics';
import { UNSUBSCRIBE_OUTBOX, type UnsubscribeOutbox } from './unsubscribe.outbox';

/** How often every replica looks for unsubscribes still waiting, besides after each POST. */
const DRAIN_INTERVAL_MS = 1_000;
/** Unsubscribes per produce request: one request, whatever a backlog holds. */
const DRAIN_BATCH = 100;

/**
 * Publishes the outbox's unsubscribes as `email.unsubscribed.v1`: right after a POST stored one,
 * and every second on every replica, so that those stored while the broker was away go out once
 * it is back, whichever replica took the POST. A publish that fails leaves them waiting; the
 * warning is written once per outage, not once a second.
 */
@Injectable()
export class UnsubscribeDrain implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(UnsubscribeDrain.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private again = false;
  private failing = false;

  constructor(
    @Inject(UNSUBSCRIBE_OUTBOX) private readonly outbox: UnsubscribeOutbox,
    private readonly publisher: ResultPublisher,
    private readonly config: AppConfig,
    private readonly metrics: UnsubscribeMetrics,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.unsubscribe.enabled) return;
    this.timer = setInterval(() => this.kick(), DRAIN_INTERVAL_MS);
    this.timer.unref();
  }

  /**
   * Stops looking. A drain under way is not waited for: with the broker away it could outlast
   * the stop's limit, and what it has not published stays in the outbox for the next replica.
   */
  onModuleDestroy(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Drains now, or once the drain under way has finished. */
  kick(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.drainAll().finally(() => {
      this.running = undefined;
      if (this.again && this.timer) {
        this.again = false;
        this.kick();
      }
    });
  }

  private async drainAll(): Promise<void> {
    const topic = this.config.topics.unsubscribed;
    try {
      while (
        (await this.outbox.drain(DRAIN_BATCH, (batch) =>
          Promise.all(
            batch.map((pending) =>
              this.publisher.publish(topic, unsubscribedRecord(pending, this.config.results)),
            ),
          ).then(() => this.metrics.published.inc(batch.length)),
        )) === DRAIN_BATCH
      );
      if (this.failing) this.logger.log('unsubscribe events are being published again');
      this.failing = false;
      this.metrics.outboxBlocked.set(0);
    } catch (error) {
      if (!this.failing) {
        this.logger.warn(
          `unsubscribe events wait in the outbox until they can be published: ${(error as Error).message}`,
        );
      }
      this.failing = true;
      this.metrics.outboxBlocked.set(1);
    }
  }
}
