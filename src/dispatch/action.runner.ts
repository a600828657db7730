import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import type { InboundEvent } from '../contracts/inbound-contracts';
import type { RecordedOutcome } from '../contracts/action-outcome';
import type { ActionStatus, EventSource } from './dispatch-outcome';
import { eventLogFields, outcomeLogLine } from './event-log';
import { windowOrder } from './window-order';
import { ClaimRenewal } from './claim-renewal';
import { MetricsService } from '../metrics/metrics.service';
import { ResultPublisher } from '../outbound/result.publisher';
import type { Planner, TemplateAction } from '../templates/planner';
import { ClaimLostError } from '../idempotency/claim-lost.error';
import {
  IDEMPOTENCY_STORE,
  type ClaimHolder,
  type ClaimResult,
  type HeldClaim,
  type IdempotencyStore,
} from '../idempotency/idempotency.store';
import { InstanceLiveness } from '../idempotency/instance-liveness';
import { CampaignDelivery } from '../delivery/campaign.delivery';
import { ContactListDelivery } from '../delivery/contact-list.delivery';
import type { DeliveredAction } from '../delivery/action-ticket';
import { WindowPlacement } from '../windows/window.placement';
import { ambiguousFailure } from '../delivery/vendor-trouble';
import { CLOCK, systemClock, type Clock } from '../delivery/clock';

/** A template and the action it planned for an event. */
export interface PlannedAction {
  template: Planner;
  action: TemplateAction;
}

const BUSY_RETRY_MS = 500;
/** Abandoned handlings remembered at most (see `ActionRunner.abandoned`). */
const MAX_ABANDONED = 10_000;

/** One handling of one (event, template) action, from its claim to its status. */
interface Handling {
  event: InboundEvent;
  template: Planner;
  action: TemplateAction;
  source: EventSource;
  key: string;
  holder: ClaimHolder;
}

/** A claim this handling may act on: it holds it, or the action was done before. */
type Settled = Exclude<ClaimResult, { kind: 'busy' }>;

/**
 * Runs one template for one event, exactly once as far as the vendor can tell, on one path for
 * every kind of action (`run`): claim the (event, template) key, deliver the action, record its
 * outcome, publish its result. The runner is the one place an outcome is recorded. Every
 * handling claims under its own name, so a second handling of the same record (a redelivery
 * after a consumer restart or a rebalance, in this process or another) waits for the first and
 * then publishes the outcome it recorded.
 */
@Injectable()
export class ActionRunner {
  private readonly logger = new Logger(ActionRunner.name);
  private readonly renewal: ClaimRenewal;
  /**
   * Per key, this process's last handling that ended without an outcome (a store or broker
   * error, its record fetched again). Its claim is taken over at once by the next handling of
   * the key here rather than waited out (`IDEMPOTENCY_CLAIM_TTL_MS`): a Redis failover mid-send
   * otherwise stalled every action it touched for the claim's whole TTL.
   */
  private readonly abandoned = new Map<string, ClaimHolder>();

  constructor(
    private readonly config: AppConfig,
    @Inject(IDEMPOTENCY_STORE) private readonly store: IdempotencyStore,
    private readonly campaigns: CampaignDelivery,
    private readonly contactLists: ContactListDelivery,
    private readonly windows: WindowPlacement,
    private readonly publisher: ResultPublisher,
    private readonly metrics: MetricsService,
    private readonly instance: InstanceLiveness,
    @Optional() @Inject(CLOCK) private readonly clock: Clock = systemClock,
  ) {
    this.renewal = new ClaimRenewal(store, config.idempotency.claimTtlMs, clock, this.logger);
  }

  async run(
    event: InboundEvent,
    { template, action }: PlannedAction,
    source: EventSource,
  ): Promise<ActionStatus> {
    const handling: Handling = {
      event,
      template,
      action,
      source,
      key: `${event.id}:${template.name}`,
      holder: { instance: this.instance.id, handling: this.instance.nextHandling() },
    };
    try {
      for (;;) {
        const claim = await this.claim(handling);
        if (claim.kind === 'done') return await this.handledBefore(handling, claim.outcome);
        const maybeSent = claim.kind === 'reclaimed' && claim.maybeSent;
        const outcome = await this.outcomeOf(handling, maybeSent);
        if (outcome) return await this.finish(handling, outcome);
        // The claim was lost before the request was written: whoever holds it now sends it, and
        // claiming again learns its outcome.
      }
    } catch (error) {
      this.abandon(handling.key, handling.holder);
      throw error;
    }
  }

  /** Bounded: a key whose record went to another process after a rebalance is never asked again. */
  private abandon(key: string, holder: ClaimHolder): void {
    this.abandoned.delete(key);
    this.abandoned.set(key, holder);
    if (this.abandoned.size > MAX_ABANDONED) {
      this.abandoned.delete(this.abandoned.keys().next().value as string);
    }
  }

  /**
   * Claims the action, waiting while another live handling runs it (a rebalance moved the
   * partition mid-send, or the consumer restarted while this record was in flight): its outcome
   * will be ours.
   */
  private async claim({ key, holder }: Handling): Promise<Settled> {
    for (;;) {
      const abandoned = this.abandoned.get(key);
      const ttl = this.config.idempotency.claimTtlMs;
      const claim = await this.store.claim(key, holder, ttl, abandoned);
      if (claim.kind !== 'busy') {
        if (abandoned) this.abandoned.delete(key);
        return claim;
      }
      await this.clock.sleep(BUSY_RETRY_MS);
    }
  }

  /**
   * The claimed action's outcome, or undefined when its claim was lost before its request was
   * written. `maybeSent`: taken over from a holder that stopped after writing its request. On any
   * other failure the claim is given back and the error thrown.
   */
  private async outcomeOf(
    handling: Handling,
    maybeSent: boolean,
  ): Promise<RecordedOutcome | undefined> {
    const { ambiguousSendPolicy } = this.config.idempotency;
    if (maybeSent) {
      this.metrics.ambiguousSend('takeover', ambiguousSendPolicy);
      this.logger.warn({
        msg: `an earlier attempt stopped after its request was written; ${ambiguousSendPolicy === 'resend' ? 'sending again' : 'failing it as ambiguous'}`,
        ...fieldsOf(handling),
      });
      if (ambiguousSendPolicy === 'fail')
        return ambiguousFailure('an earlier attempt stopped after writing its request');
    }
    const { action, key, holder, event, template, source } = handling;
    try {
      if (action.kind === 'contact-list' && action.mode === 'window') {
        // Only stores the member: its result comes with the list (`src/windows/`).
        return await this.windows.place(action, windowOrder(key, event, template, source));
      }
      // Carried to the vendor, its claim renewed meanwhile: renewed here, in the function that
      // waits anyway, not in one more suspended function per waiting action.
      const claim: HeldClaim = { key, holder };
      this.renewal.hold(claim);
      try {
        return await this.deliver(claim, template, action, maybeSent, source);
      } finally {
        this.renewal.letGo(claim);
      }
    } catch (error) {
      if (error instanceof ClaimLostError) return undefined;
      await this.store.release(key, holder).catch(() => undefined);
      throw error;
    }
  }

  /** Carries a campaign or an exact contact list to the vendor. */
  private deliver(
    claim: HeldClaim,
    { category }: Planner,
    action: DeliveredAction,
    ambiguous: boolean,
    { trace }: EventSource,
  ): Promise<RecordedOutcome> {
    const ticket = { claim, category, ambiguous, trace };
    return action.kind === 'campaign'
      ? this.campaigns.deliver(action, ticket)
      : this.contactLists.deliver(action, ticket);
  }

  /** An action finished before (a redelivery): its recorded result is published again. */
  private async handledBefore(
    handling: Handling,
    recorded: RecordedOutcome,
  ): Promise<ActionStatus> {
    if (recorded.status === 'in-window') {
      // Stored in a window before: its result comes when that list is created, not now.
      this.logger.log({
        msg: 'handled before: in its contact-list window',
        ...fieldsOf(handling),
        status: 'in-window',
        list: recorded.list,
      });
      return 'in-window';
    }
    const { event, template, source } = handling;
    await this.publisher.publishResult(event, template.name, recorded, source);
    this.metrics.outcomes.inc({ outcome: 'duplicate' });
    this.logger.log(outcomeLogLine('duplicate', recorded, fieldsOf(handling)));
    return 'duplicate';
  }

  /**
   * Records the action's outcome, then publishes its result; a window mark publishes nothing
   * yet. The records and results of one turn travel together (the store's and the publisher's
   * own batching), so the actions one vendor request completes cost one write each way.
   */
  private async finish(handling: Handling, outcome: RecordedOutcome): Promise<ActionStatus> {
    const { event, template, source, key } = handling;
    await this.store.complete([{ key, outcome }]);
    if (outcome.status === 'in-window') {
      // Nothing to publish yet: the record is done (its offset commits), the member is stored.
      this.logger.log({
        msg: 'in-window',
        ...fieldsOf(handling),
        status: 'in-window',
        list: outcome.list,
      });
      return 'in-window';
    }
    await this.publisher.publishResult(event, template.name, outcome, source);
    this.metrics.outcomes.inc({ outcome: outcome.status });
    const line = outcomeLogLine(outcome.status, outcome, fieldsOf(handling));
    if (outcome.status === 'failed') this.logger.warn(line);
    else this.logger.log(line);
    return outcome.status;
  }
}

function fieldsOf({ event, template, source }: Handling): ReturnType<typeof eventLogFields> {
  return eventLogFields(event, template.name, source);
}
