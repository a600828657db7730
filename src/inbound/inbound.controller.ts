import { Controller } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import type { DispatchOutcome } from '../dispatch/dispatch-outcome';
import { DispatchService } from '../dispatch/dispatch.service';
import { INBOUND_EVENT, type InboundMessage } from './inbound-message';
import { RecordContext } from './record-context';

/** The entry point of every consumed record; the transport awaits the returned outcome. */
@Controller()
export class InboundController {
  constructor(private readonly dispatch: DispatchService) {}

  @EventPattern(INBOUND_EVENT)
  handle(@Payload() message: InboundMessage, @Ctx() context: unknown): Promise<DispatchOutcome> {
    const park = context instanceof RecordContext ? () => context.park() : undefined;
    return this.dispatch.dispatch(message, park);
  }
}
