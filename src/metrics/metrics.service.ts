import { Injectable } from '@nestjs/common';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** The service's Prometheus metrics, served at GET /metrics. */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();

  /** Terminal outcomes of (event, template) actions, and dead letters. */
  readonly outcomes = new Counter({
    name: 'mailbridge_outcomes_total',
    help: 'Terminal outcomes: sent, created, failed, duplicate (result re-published), dead_lettered',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  /**
   * Sends whose fate was unknown: `takeover` when a vanished holder had marked the request as
   * about to be written and no outcome was recorded (the crash window), `lost-answer` when a
   * written request timed out or its connection was reset. `resolution` is what the policy made
   * of it: `resend` (a possible second email) or `fail` (an ambiguous failure result).
   */
  readonly ambiguousSends = new Counter({
    name: 'mailbridge_ambiguous_sends_total',
    help: 'Sends that may have reached the vendor without an answer, by cause and resolution',
    labelNames: ['cause', 'resolution'] as const,
    registers: [this.registry],
  });

  /** Actions sent again although an earlier attempt may have reached the vendor. */
  readonly possibleDuplicates = new Counter({
    name: 'mailbridge_possible_duplicate_sends_total',
    help: 'Actions sent again after an attempt whose fate is unknown (ambiguous, policy resend)',
    registers: [this.registry],
  });

  readonly recipientsPerRequest = new Histogram({
    name: 'mailbridge_campaign_recipients_per_request',
    help: 'Recipients carried by each campaign request sent',
    buckets: [1, 10, 50, 100, 250, 500, 1000, 2500],
    registers: [this.registry],
  });

  readonly vendorPauses = new Counter({
    name: 'mailbridge_vendor_pauses_total',
    help: 'Times consumption paused because the vendor refused keys or kept failing',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  /** Counts one send of unknown fate, and a possible duplicate when the policy resends it. */
  ambiguousSend(cause: 'takeover' | 'lost-answer', resolution: 'resend' | 'fail'): void {
    this.ambiguousSends.inc({ cause, resolution });
    if (resolution === 'resend') this.possibleDuplicates.inc();
  }

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'mailbridge_' });
  }
}
