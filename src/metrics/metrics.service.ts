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
   * Sends that may have reached the vendor twice: an earlier owner claimed the action and
   * vanished before recording its outcome, so it is sent again. Should stay at zero.
   */
  readonly possibleDuplicates = new Counter({
    name: 'mailbridge_possible_duplicate_sends_total',
    help: 'Actions re-sent after an earlier attempt was abandoned mid-send (crash window)',
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

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'mailbridge_' });
  }
}
