import { Module, type OnModuleDestroy } from '@nestjs/common';
import { DispatchModule } from '../dispatch/dispatch.module';
import { MetricsModule } from '../metrics/metrics.module';
import { OutboundModule } from '../outbound/outbound.module';
import { ConsumerStatus } from './consumer-status';
import { InboundController } from './inbound.controller';
import { RecordHandler } from './record.handler';

/**
 * The edge: the Kafka transport's handler, parsing and dead-lettering, and what the consumer is
 * doing (for health). The transport itself is attached in `app.ts`, outside the module graph.
 */
@Module({
  imports: [DispatchModule, OutboundModule, MetricsModule],
  controllers: [InboundController],
  providers: [RecordHandler, ConsumerStatus],
  exports: [ConsumerStatus],
})
export class InboundModule implements OnModuleDestroy {
  constructor(private readonly status: ConsumerStatus) {}

  /**
   * Before any module it imports stops (Nest runs importers' destroy hooks first): from here on a
   * record that ends without an outcome was given back by the stop.
   */
  onModuleDestroy(): void {
    this.status.markStopping();
  }
}
