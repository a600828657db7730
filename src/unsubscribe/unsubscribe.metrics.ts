import { Injectable } from '@nestjs/common';
import { Counter, Gauge } from 'prom-client';
import { MetricsService } from '../metrics/metrics.service';

/**
 * What the public listener answered and what its outbox did, on the service's `/metrics`. Kept
 * beside the listener rather than in `MetricsService`: only this module writes them.
 */
@Injectable()
export class UnsubscribeMetrics {
  /** Answers of the public listener by HTTP status: 200 stored, 4xx refused, 503 not stored. */
  readonly answers: Counter<'status'>;
  /** `email.unsubscribed.v1` events this replica published from the outbox. */
  readonly published: Counter;
  /** 1 while this replica's last drain of the outbox failed (the broker away), else 0. */
  readonly outboxBlocked: Gauge;

  constructor(metrics: MetricsService) {
    this.answers = new Counter({
      name: 'mailbridge_unsubscribe_answers_total',
      help: 'Answers of the public unsubscribe listener, by HTTP status',
      labelNames: ['status'] as const,
      registers: [metrics.registry],
    });
    this.published = new Counter({
      name: 'mailbridge_unsubscribe_events_published_total',
      help: 'email.unsubscribed.v1 events published from the outbox by this replica',
      registers: [metrics.registry],
    });
    this.outboxBlocked = new Gauge({
      name: 'mailbridge_unsubscribe_outbox_blocked',
      help: '1 while unsubscribe events wait in the outbox because publishing them failed',
      registers: [metrics.registry],
    });
  }
}
