import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import type { InboundEvent } from '../contracts/inbound-contracts';
import type { ActionStatus, EventSource } from './dispatch-outcome';
import { eventLogFields, outcomeLogLine } from './event-log';
import { MetricsService } from '../metrics/metrics.service';
import { ResultPublisher } from '../outbound/result.publisher';
import type { Planner, TemplateAction } from '../templates/planner';
import { ClaimLostError } from '../idempotency/claim-lost.error';
import type { RecordedOutcome } from '../contracts/action-outcome';
import type { WindowOrder } from '../cluster/window.store';
import type { IHeaders } from 'kafkajs';
import {
  IDEMPOTENCY_STORE,
  type ClaimHolder,
  type HeldClaim,
  type IdempotencyStore,
} from '../idempotency/idempotency.store';
import { InstanceLiveness } from '../idempotency/instance-liveness';
import { ambiguousFailure, DeliveryService, type ActionTicket } from '../delivery/delivery.service';
import { CLOCK, systemClock, type Clock } from '../delivery/clock';

/** A template and the action it planned for an event. */
export interface PlannedAction {
  template: Planner;
  action: TemplateAction;
}

const BUSY_RETRY_MS = 500;

/**
 * Runs one template for one event, exactly once as far as the vendor can tell: claim the
 * (event, template) key, plan, send, record the outcome, publish the result. Every handling
 * claims under its own name, so a second handling of the same record (a redelivery after a
 * consumer restart or a rebalance, in this process or another) waits for the first and then
 * publishes the outcome it recorded.
 */
@Injectable()
export class ActionRunner {
  private readonly logger = new Logger(ActionRunner.name);
  /** Claims whose action is with the vendor, kept alive by one timer for all of them. */
  private readonly sending = new Set<HeldClaim>();
  private stopRenewing?: () => void;

  constructor(
    private readonly config: AppConfig,
    @Inject(IDEMPOTENCY_STORE) private readonly store: IdempotencyStore,
    private readonly vendor: DeliveryService,
    private readonly publisher: ResultPublisher,
    private readonly metrics: MetricsService,
    private readonly instance: InstanceLiveness,
    @Optional() @Inject(CLOCK) private readonly clock: Clock = systemClock,
  ) {}

  async run(
    event: InboundEvent,
    { template, action }: PlannedAction,
    source: EventSource,
  ): Promise<ActionStatus> {
    const key = `${event.id}:${template.name}`;
    const fields = () => eventLogFields(event, template.name, source);
    const holder: ClaimHolder = {
      instance: this.instance.id,
      handling: this.instance.nextHandling(),
    };
    const { claimTtlMs, ambiguousSendPolicy } = this.config.idempotency;
    let ambiguous = false;
    let recorded = false;
    let outcome: RecordedOutcome | undefined;
    while (!outcome) {
      const claim = await this.store.claim(key, holder, claimTtlMs);
      if (claim.kind === 'done') {
        const recorded = claim.outcome;
        if (recorded.status === 'in-window') {
          // Stored in a window before: its result comes when that list is created, not now.
          this.logger.log({
            msg: 'handled before: in its contact-list window',
            ...fields(),
            status: 'in-window',
            list: recorded.list,
          });
          return 'in-window';
        }
        await this.publisher.publishResult(event, template.name, recorded, source);
        this.metrics.outcomes.inc({ outcome: 'duplicate' });
        this.logger.log(outcomeLogLine('duplicate', recorded, fields()));
        return 'duplicate';
      }
      if (claim.kind === 'busy') {
        // Another live handling runs it: a rebalance moved the partition mid-send, or the
        // consumer restarted while this record was in flight. Its outcome will be ours.
        await this.clock.sleep(BUSY_RETRY_MS);
        continue;
      }
      if (claim.kind === 'reclaimed' && claim.maybeSent) {
        this.metrics.ambiguousSend('takeover', ambiguousSendPolicy);
        this.logger.warn({
          msg: `an earlier attempt stopped after its request was written; ${ambiguousSendPolicy === 'resend' ? 'sending again' : 'failing it as ambiguous'}`,
          ...fields(),
        });
        if (ambiguousSendPolicy === 'fail') {
          outcome = ambiguousFailure('an earlier attempt stopped after writing its request');
          break;
        }
        ambiguous = true;
      }
      // Only a contact-list window keeps the event (its headers as text) until its list exists;
      // built for it alone, not for every record a campaign holds in flight.
      const order =
        action.kind === 'contact-list' && action.mode === 'window'
          ? windowOrder(key, event, template.name, source)
          : undefined;
      outcome = await this.send(key, holder, action, {
        ambiguous,
        trace: source.trace,
        order,
        recorded: () => {
          recorded = true;
        },
      });
    }
    // Usually recorded already, the moment the vendor accepted; failures, ambiguous failures,
    // window marks and a record that did not land are recorded here.
    if (!recorded) await this.store.complete([{ key, outcome }]);
    if (outcome.status === 'in-window') {
      // Nothing to publish yet: the record is done (its offset commits), the member is stored.
      this.logger.log({ msg: 'in-window', ...fields(), status: 'in-window', list: outcome.list });
      return 'in-window';
    }
    await this.publisher.publishResult(event, template.name, outcome, source);
    this.metrics.outcomes.inc({ outcome: outcome.status });
    const line = outcomeLogLine(outcome.status, outcome, fields());
    if (outcome.status === 'failed') this.logger.warn(line);
    else this.logger.log(line);
    return outcome.status;
  }

  /** The outcome, or undefined when the claim was lost before sending (claim again). */
  private async send(
    key: string,
    holder: ClaimHolder,
    action: TemplateAction,
    ticket: Pick<ActionTicket, 'ambiguous' | 'trace' | 'order' | 'recorded'>,
  ): Promise<RecordedOutcome | undefined> {
    const claim: HeldClaim = { key, holder };
    this.keepAlive(claim);
    try {
      return await this.vendor.execute(action, { claim, ...ticket });
    } catch (error) {
      if (error instanceof ClaimLostError) return undefined;
      await this.store.release(key, holder).catch(() => undefined);
      throw error;
    } finally {
      this.letGo(claim);
    }
  }

  /**
   * Keeps the claim alive however long the vendor makes us wait: every third of the claim TTL,
   * one timer renews every claim being sent (thousands are, at once, under load), rather than a
   * timer of each. A claim is renewed at most a third of the TTL after it joins.
   */
  private keepAlive(claim: HeldClaim): void {
    this.sending.add(claim);
    if (this.stopRenewing) return;
    const { claimTtlMs } = this.config.idempotency;
    this.stopRenewing = this.clock.every(claimTtlMs / 3, () => {
      for (const { key, holder } of this.sending) {
        this.store.renew(key, holder, claimTtlMs).then(
          (held) => held || this.logger.warn(`claim on ${key} was taken over while running`),
          (e: Error) => this.logger.warn(`claim renewal: ${e.message}`),
        );
      }
    });
  }

  private letGo(claim: HeldClaim): void {
    this.sending.delete(claim);
    if (this.sending.size > 0) return;
    this.stopRenewing?.();
    this.stopRenewing = undefined;
  }
}

/** What a contact-list window keeps of an event, to publish its result once the list exists. */
function windowOrder(
  ref: string,
  event: InboundEvent,
  template: string,
  source: EventSource,
): WindowOrder {
  return {
    ref,
    eventId: event.id,
    eventType: event.type,
    template,
    key: source.key === null ? null : source.key.toString('base64'),
    headers: textHeaders(source.headers),
  };
}

function textHeaders(headers: IHeaders): Record<string, string> {
  const text: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined) text[name] = first.toString();
  }
  return text;
}
