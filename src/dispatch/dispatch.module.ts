import { Module } from '@nestjs/common';
import { CLOCK, systemClock } from '../delivery/clock';
import { DeliveryModule } from '../delivery/delivery.module';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { MetricsModule } from '../metrics/metrics.module';
import { OutboundModule } from '../outbound/outbound.module';
import { TemplatesModule } from '../templates/templates.module';
import { ActionRunner } from './action.runner';
import { DispatchService } from './dispatch.service';
import { WindowsModule } from '../windows/windows.module';

/**
 * Per event: its templates' plans, each claimed, delivered once (or placed in its contact-list
 * window) and answered with a result.
 */
@Module({
  imports: [
    TemplatesModule,
    DeliveryModule,
    IdempotencyModule,
    OutboundModule,
    MetricsModule,
    WindowsModule,
  ],
  providers: [{ provide: CLOCK, useValue: systemClock }, ActionRunner, DispatchService],
  exports: [DispatchService],
})
export class DispatchModule {}
