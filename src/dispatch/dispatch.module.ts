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
import { SuppressionModule } from '../suppression/suppression.module';
import { SuppressionCommands } from './suppression.commands';
import { UnsubscribeModule } from '../unsubscribe/unsubscribe.module';

/**
 * Per event: its templates' plans, each claimed, delivered once (or placed in its contact-list
 * window) and answered with a result; suppression commands carried out on the list.
 */
@Module({
  imports: [
    TemplatesModule,
    DeliveryModule,
    IdempotencyModule,
    OutboundModule,
    MetricsModule,
    WindowsModule,
    SuppressionModule,
    UnsubscribeModule,
  ],
  providers: [
    { provide: CLOCK, useValue: systemClock },
    ActionRunner,
    DispatchService,
    SuppressionCommands,
  ],
  exports: [DispatchService],
})
export class DispatchModule {}
