import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { AppConfig } from '../config/app-config';
import type { InboundEvent } from '../contracts/inbound-contracts';
import type { InboundMessage } from '../inbound/inbound-message';
import { MetricsService } from '../metrics/metrics.service';
import { ResultPublisher } from '../outbound/result.publisher';
import type { Template } from '../templates/template';
import {
  IDEMPOTENCY_STORE,
  type IdempotencyStore,
  type StoredOutcome,
} from './idempotency/idempotency.store';
import { resultFor } from './result.factory';
import { VendorDispatcher } from './vendor.dispatcher';

export type ActionOutcome = StoredOutcome['status'] | 'duplicate';

const BUSY_RETRY_MS = 1_000;

/**
 * Runs one template for one event, exactly once as far as the vendor can tell: claim the
 * (event, template) key, plan, send, record the outcome, publish the result. A redelivered
 * event finds its outcome recorded and only publishes the same result again.
 */
@Injectable()
export class ActionRunner {
  private readonly logger = new Logger(ActionRunner.name);
  /** Identifies this process's claims; a restart is a new owner. */
  private readonly owner = randomUUID();

  constructor(
    private readonly config: AppConfig,
    @Inject(IDEMPOTENCY_STORE) private readonly store: IdempotencyStore,
    private readonly vendor: VendorDispatcher,
    private readonly publisher: ResultPublisher,
    private readonly metrics: MetricsService,
  ) {}

  async run(
    event: InboundEvent,
    template: Template,
    message: InboundMessage,
  ): Promise<ActionOutcome> {
    const key = `${event.id}:${template.name}`;
    const { claimTtlMs } = this.config.idempotency;
    for (;;) {
      const claim = await this.store.claim(key, this.owner, claimTtlMs);
      if (claim.kind === 'done') {
        await this.publish(event, template, message, claim.outcome);
        this.metrics.outcomes.inc({ outcome: 'duplicate' });
        return 'duplicate';
      }
      if (claim.kind === 'busy') {
        // Another live instance runs it (a rebalance moved the partition mid-send).
        await sleep(BUSY_RETRY_MS);
        continue;
      }
      if (claim.kind === 'reclaimed') {
        this.metrics.possibleDuplicates.inc();
        this.logger.warn(
          `event ${event.id} (${template.name}) was abandoned mid-send; sending again`,
        );
      }
      break;
    }

    // Keep the claim alive however long the vendor makes us wait.
    const renew = setInterval(() => {
      this.store
        .claim(key, this.owner, claimTtlMs)
        .catch((e: Error) => this.logger.warn(`claim renewal: ${e.message}`));
    }, claimTtlMs / 3);
    let outcome: StoredOutcome;
    try {
      outcome = await this.vendor.execute(template.plan(event));
    } catch (error) {
      await this.store.release(key, this.owner).catch(() => undefined);
      throw error;
    } finally {
      clearInterval(renew);
    }
    await this.store.complete(key, outcome);
    await this.publish(event, template, message, outcome);
    this.metrics.outcomes.inc({ outcome: outcome.status });
    return outcome.status;
  }

  private async publish(
    event: InboundEvent,
    template: Template,
    message: InboundMessage,
    outcome: StoredOutcome,
  ): Promise<void> {
    const result = resultFor(event, template.name, outcome, new Date());
    const topics = this.config.topics;
    const topic =
      outcome.status === 'sent'
        ? topics.campaignSent
        : outcome.status === 'created'
          ? topics.contactListCreated
          : topics.dispatchFailed;
    await this.publisher.publish(topic, {
      key: message.key,
      value: result,
      headers: { ...ResultPublisher.propagatedHeaders(message), 'correlation-id': event.id },
    });
  }
}
