import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import type { InboundEvent } from '../contracts/inbound-contracts';
import type { ActionStatus, EventSource } from './dispatch-outcome';
import { eventLogFields, outcomeLogLine } from './event-log';
import { windowOrder } from './window-order';
import { MetricsService } from '../metrics/metrics.service';
import { ResultPublisher } from '../outbound/result.publisher';
import type { CampaignAction, Planner, TemplateAction } from '../templates/planner';
import { ClaimLostError } from '../idempotency/claim-lost.error';
import type { ActionOutcome, RecordedOutcome } from '../contracts/action-outcome';
import {
  IDEMPOTENCY_STORE,
  type ClaimHolder,
  type ClaimResult,
  type HeldClaim,
  type IdempotencyStore,
} from '../idempotency/idempotency.store';
import { InstanceLiveness } from '../idempotency/instance-liveness';
import {
  DeliveryService,
  type ActionTicket,
  type DeliveredAction,
} from '../delivery/delivery.service';
import { WindowPlacement, type WindowAction } from '../windows/window.placement';
import { ambiguousFailure } from '../delivery/vendor-trouble';
import { CLOCK, systemClock, type Clock } from '../delivery/clock';

/** A template and the action it planned for an event. */
export interface PlannedAction {
  template: Planner;
  action: TemplateAction;
}

const BUSY_RETRY_MS = 500;

/** One handling of one (event, template) action, from its claim to its status. */
interface Handling {
  event: InboundEvent;
  template: Planner;
  action: TemplateAction;
  source: EventSource;
  key: string;
  holder: ClaimHolder;
  /** Its outcome is in the store already (recorded the moment the vendor accepted). */
  recorded: boolean;
}

/** A campaign action the vendor accepted whole, waiting to be finished with the others. */
interface Accepted {
  handling: Handling;
  outcome: ActionOutcome;
  resolve: (status: ActionStatus) => void;
  reject: (error: unknown) => void;
}

/** Where the general path starts: a claim answered, or a send already under way. */
type FirstStep =
  | { kind: 'claim'; claim: ClaimResult }
  | { kind: 'sending'; claim: HeldClaim; outcome: Promise<RecordedOutcome> };

/**
 * Runs one template for one event, exactly once as far as the vendor can tell: claim the
 * (event, template) key, plan, send, record the outcome, publish the result. Every handling
 * claims under its own name, so a second handling of the same record (a redelivery after a
 * consumer restart or a rebalance, in this process or another) waits for the first and then
 * publishes the outcome it recorded.
 *
 * Two paths. The common case, a campaign action claimed afresh, waits for its vendor request
 * without a suspended function of its own (`DeliveryService.startCampaign`), and the actions one
 * request completes are finished together: their outcomes recorded if the batcher could not,
 * their results published in one call, then each action's status. A contact-list window's action
 * claimed afresh only stores its member (`placeInWindow`). Everything else, and anything that
 * goes otherwise on the way (a claim busy or done, an ambiguous takeover, an exact contact list,
 * a closed gate, a failed recipient, a claim lost), runs on the general path, `runFrom`.
 */
@Injectable()
export class ActionRunner {
  private readonly logger = new Logger(ActionRunner.name);
  /** Claims whose action is with the vendor, kept alive by one timer for all of them. */
  private readonly sending = new Set<HeldClaim>();
  private stopRenewing?: () => void;
  /** Campaign actions accepted in this turn, finished together at its end. */
  private accepted: Accepted[] = [];

  constructor(
    private readonly config: AppConfig,
    @Inject(IDEMPOTENCY_STORE) private readonly store: IdempotencyStore,
    private readonly vendor: DeliveryService,
    private readonly publisher: ResultPublisher,
    private readonly metrics: MetricsService,
    private readonly instance: InstanceLiveness,
    private readonly windows: WindowPlacement,
    @Optional() @Inject(CLOCK) private readonly clock: Clock = systemClock,
  ) {}

  run(
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
      recorded: false,
    };
    const { claimTtlMs } = this.config.idempotency;
    return this.store.claim(handling.key, handling.holder, claimTtlMs).then((claim) => {
      const fresh = claim.kind === 'claimed' || (claim.kind === 'reclaimed' && !claim.maybeSent);
      if (fresh && action.kind === 'campaign') return this.sendCampaign(handling, action);
      if (fresh && action.kind === 'contact-list' && action.mode === 'window')
        return this.placeInWindow(handling, action);
      return this.runFrom(handling, { kind: 'claim', claim });
    });
  }

  /**
   * The window path: a contact-list window's action claimed afresh stores its member (one script
   * call for the turn's orders) and is finished as the general path finishes it (`finish`:
   * `in-window` recorded, its result coming with the list). No claim renewal: the store answers
   * within the claim's TTL or not at all, and a second handling that claims it meanwhile is told
   * `duplicate` by the window store. On failure the claim is given back and the error thrown, as
   * on the general path.
   */
  private async placeInWindow(handling: Handling, action: WindowAction): Promise<ActionStatus> {
    return this.finish(handling, await this.place(handling, action));
  }

  /** Stores a window action's member (`in-window`); on failure gives the claim back and throws. */
  private async place(handling: Handling, action: WindowAction): Promise<RecordedOutcome> {
    const { key, event, template, source, holder } = handling;
    try {
      return await this.windows.place(action, windowOrder(key, event, template.name, source));
    } catch (error) {
      await this.store.release(key, holder).catch(() => undefined);
      throw error;
    }
  }

  /**
   * The common path: the campaign's recipients join their batch; when the vendor accepts them
   * all, the action is finished with the others of its request (`finishAccepted`); otherwise the
   * general path takes it over, its send under way.
   */
  private sendCampaign(handling: Handling, action: CampaignAction): Promise<ActionStatus> {
    return new Promise((resolve, reject) => {
      const claim: HeldClaim = { key: handling.key, holder: handling.holder };
      this.keepAlive(claim);
      const ticket = {
        claim,
        ambiguous: false,
        trace: handling.source.trace,
        recorded: () => (handling.recorded = true),
      };
      const continued = (outcome: Promise<ActionOutcome>) => {
        this.runFrom(handling, { kind: 'sending', claim, outcome }).then(resolve, reject);
      };
      try {
        this.vendor.startCampaign(action, ticket, {
          sent: (outcome, recorded) => {
            this.letGo(claim);
            handling.recorded ||= recorded;
            if (this.accepted.length === 0) queueMicrotask(() => this.finishAccepted());
            this.accepted.push({ handling, outcome, resolve, reject });
          },
          continued,
        });
      } catch (error) {
        // A bug, not the vendor: the general path gives the claim back and fails the action.
        continued(Promise.reject(error instanceof Error ? error : new Error(String(error))));
      }
    });
  }

  /**
   * Finishes the campaign actions accepted in one turn (one vendor request's, usually): the
   * outcomes the batcher could not record are recorded, in one call; then every result is
   * published, in one call; then each action is counted, logged, and given its status. A failure
   * of either call fails them all, with no result published for any that was not recorded.
   */
  private finishAccepted(): void {
    const group = this.accepted;
    this.accepted = [];
    const unrecorded = group.filter((a) => !a.handling.recorded);
    const stored =
      unrecorded.length === 0
        ? Promise.resolve()
        : this.store.complete(unrecorded.map((a) => ({ key: a.handling.key, outcome: a.outcome })));
    stored
      .then(() =>
        this.publisher.publishResults(
          group.map(({ handling, outcome }) => ({
            event: handling.event,
            template: handling.template.name,
            outcome,
            source: handling.source,
          })),
        ),
      )
      .then(
        () => {
          this.metrics.outcomes.inc({ outcome: 'sent' }, group.length);
          for (const { handling, outcome, resolve, reject } of group) {
            try {
              this.logger.log(outcomeLogLine(outcome.status, outcome, fieldsOf(handling)));
              resolve(outcome.status);
            } catch (error) {
              reject(error);
            }
          }
        },
        (error: unknown) => {
          for (const { reject } of group) reject(error);
        },
      );
  }

  /**
   * The general path, for every claim answer and every kind of action; `first` is where it
   * starts (the claim the caller made, or the common path's send under way).
   */
  private async runFrom(handling: Handling, first: FirstStep): Promise<ActionStatus> {
    const { action, source, key, holder } = handling;
    const { claimTtlMs, ambiguousSendPolicy } = this.config.idempotency;
    let ambiguous = false;
    let outcome: RecordedOutcome | undefined;
    let step: FirstStep | undefined = first;
    while (!outcome) {
      if (step?.kind === 'sending') {
        const under = step.outcome;
        outcome = await this.settleSend(step.claim, () => under);
        step = undefined;
        continue;
      }
      const claim = step ? step.claim : await this.store.claim(key, holder, claimTtlMs);
      step = undefined;
      if (claim.kind === 'done') return this.handledBefore(handling, claim.outcome);
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
          ...fieldsOf(handling),
        });
        if (ambiguousSendPolicy === 'fail') {
          outcome = ambiguousFailure('an earlier attempt stopped after writing its request');
          break;
        }
        ambiguous = true;
      }
      if (action.kind === 'contact-list' && action.mode === 'window') {
        outcome = await this.place(handling, action);
        break;
      }
      outcome = await this.send(key, holder, action, {
        ambiguous,
        trace: source.trace,
        recorded: () => {
          handling.recorded = true;
        },
      });
    }
    return this.finish(handling, outcome);
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
   * Records an action's outcome (unless it was recorded the moment the vendor accepted) and
   * publishes its result; a window mark publishes nothing yet.
   */
  private async finish(handling: Handling, outcome: RecordedOutcome): Promise<ActionStatus> {
    const { event, template, source, key } = handling;
    // Usually recorded already, the moment the vendor accepted; failures, ambiguous failures,
    // window marks and a record that did not land are recorded here.
    if (!handling.recorded) await this.store.complete([{ key, outcome }]);
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

  /** The outcome, or undefined when the claim was lost before sending (claim again). */
  private send(
    key: string,
    holder: ClaimHolder,
    action: DeliveredAction,
    ticket: Pick<ActionTicket, 'ambiguous' | 'trace' | 'recorded'>,
  ): Promise<RecordedOutcome | undefined> {
    const claim: HeldClaim = { key, holder };
    this.keepAlive(claim);
    return this.settleSend(claim, () => this.vendor.execute(action, { claim, ...ticket }));
  }

  /**
   * What a send under way came to: its outcome, or undefined when the claim was lost before the
   * request was written (claim again). On any other failure the claim is given back and the
   * error thrown. Either way the claim is no longer renewed.
   */
  private async settleSend(
    claim: HeldClaim,
    sending: () => Promise<RecordedOutcome>,
  ): Promise<RecordedOutcome | undefined> {
    try {
      return await sending();
    } catch (error) {
      if (error instanceof ClaimLostError) return undefined;
      await this.store.release(claim.key, claim.holder).catch(() => undefined);
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

function fieldsOf({ event, template, source }: Handling): ReturnType<typeof eventLogFields> {
  return eventLogFields(event, template.name, source);
}
