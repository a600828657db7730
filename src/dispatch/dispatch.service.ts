import { Injectable } from '@nestjs/common';
import { EMAIL_SUPPRESSION_REQUESTED_V1 } from '../contracts/email-suppression-requested.v1';
import type { InboundEvent } from '../contracts/inbound-contracts';
import { MetricsService } from '../metrics/metrics.service';
import { PlannerRegistry } from '../templates/planner.registry';
import type { TemplateCategory } from '../contracts/template-category';
import type { TemplateAction } from '../templates/planner';
import { UnsubscribeLinks } from '../unsubscribe/unsubscribe-links';
import { ActionRunner, type PlannedAction } from './action.runner';
import type { DispatchOutcome, EventSource } from './dispatch-outcome';
import { SuppressionCommands } from './suppression.commands';

/** An event that cannot be planned: no template for its type, or a template threw. */
export type Unplannable = Extract<DispatchOutcome, { kind: 'unplannable' }>;

/** An event every template planned an action for. */
export type Dispatched = Extract<DispatchOutcome, { kind: 'dispatched' }>;

/**
 * Takes one validated event to its terminal outcome: every template for its type planned
 * ({@link plan}, at once, no I/O), then each plan run to a result event ({@link run}). The run
 * resolves only once all of that is on Kafka; a rejection means "no outcome yet" and leaves the
 * record's offset uncommitted.
 */
@Injectable()
export class DispatchService {
  constructor(
    private readonly templates: PlannerRegistry,
    private readonly runner: ActionRunner,
    private readonly metrics: MetricsService,
    private readonly suppression: SuppressionCommands,
    private readonly links: UnsubscribeLinks,
  ) {}

  /**
   * Every template's action for the event, or why there is none (the event is dead-lettered).
   * A suppression command plans nothing: it is no template's, and `run` carries it out.
   */
  plan(event: InboundEvent): PlannedAction[] | Unplannable {
    if (event.type === EMAIL_SUPPRESSION_REQUESTED_V1) return [];
    const templates = this.templates.forEventType(event.type);
    if (templates.length === 0) {
      return {
        kind: 'unplannable',
        code: 'UNKNOWN_TYPE',
        message: `no template handles '${event.type}'`,
      };
    }
    let planned: PlannedAction[];
    try {
      // Templates are pure: an event one of them cannot plan will never be planned.
      planned = templates.map((template) => ({
        template,
        action: this.withUnsubscribeLinks(template.plan(event), template.category),
      }));
    } catch (error) {
      // Only the error's class is named: its message may quote the event.
      const name = error instanceof Error ? error.name : typeof error;
      const message = `a template for '${event.type}' could not plan it (${name})`;
      return { kind: 'unplannable', code: 'TEMPLATE_FAILED', message };
    }
    for (const { template, action } of planned) {
      // A locale without a copy is the default copy, an unknown zone the default zone, never a
      // dead letter: counted here, since templates are pure.
      if (action.kind !== 'campaign') continue;
      const { localeFallback: reason, timeZoneFallback } = action;
      if (reason) this.metrics.localeFallbacks.inc({ template: template.name, reason });
      if (timeZoneFallback) this.metrics.timeZoneFallbacks.inc({ template: template.name });
    }
    return planned;
  }

  /**
   * A marketing campaign's recipients each get their own one-click link (`UNSUBSCRIBE_URL`):
   * added here, not by the template, since sealing one takes a clock and randomness.
   */
  private withUnsubscribeLinks(action: TemplateAction, category: TemplateCategory): TemplateAction {
    if (action.kind !== 'campaign' || category !== 'marketing') return action;
    return { ...action, recipients: this.links.withLinks(action.recipients, category) };
  }

  /** Runs each planned action to its result; resolves when every one is on Kafka. */
  run(event: InboundEvent, planned: PlannedAction[], source: EventSource): Promise<Dispatched> {
    if (event.type === EMAIL_SUPPRESSION_REQUESTED_V1) {
      // Applied to the shared store, idempotently: a failure leaves the record uncommitted.
      return this.suppression.apply(event).then(() => ({ kind: 'dispatched', actions: {} }));
    }
    // A continuation, not a suspended async function, while the actions run (every record in
    // flight holds one); and no Promise.all, nor arrays of statuses, for one template, the
    // common case.
    if (planned.length === 1) {
      const { name } = planned[0].template;
      return this.runner
        .run(event, planned[0], source)
        .then((status) => ({ kind: 'dispatched', actions: { [name]: status } }));
    }
    return Promise.all(planned.map((p) => this.runner.run(event, p, source))).then(
      (statuses): Dispatched => ({
        kind: 'dispatched',
        actions: Object.fromEntries(planned.map((p, i) => [p.template.name, statuses[i]])),
      }),
    );
  }
}
