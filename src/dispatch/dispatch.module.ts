import { Module } from '@nestjs/common';
import { CLOCK, systemClock } from '../delivery/clock';
import { DeliveryModule } from '../delivery/delivery.module';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { MetricsModule } from '../metrics/metrics.module';
import { OutboundModule } from '../outbound/outbound.module';
import { TemplatesModule } from '../templates/templates.module';
import { ActionRunner } from './action.runner';
import { DispatchService } from './dispatch.service';
import { WindowCloser } from './window.closer';
import { ClusterModule } from '../cluster/cluster.module';

/**
 * Per event: its templates' plans, each claimed, delivered once and answered with a result; and
 * the closer that creates contact-list windows' lists and answers their orders.
 */
@Module({
  imports: [
    TemplatesModule,
    DeliveryModule,
    IdempotencyModule,
    OutboundModule,
    MetricsModule,
    ClusterModule,
  ],
  providers: [
    { provide: CLOCK, useValue: systemClock },
    ActionRunner,
    DispatchService,
    WindowCloser,
  ],
  exports: [DispatchService],
})
export class DispatchModule {}
