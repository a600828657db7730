import { BaseRpcContext } from '@nestjs/microservices';
import type { InboundMessage } from './inbound-message';

/**
 * The context the transport hands the handler with each record. `park()` says the record's
 * outcome now waits on a timer (a contact-list window): from then on the record no longer holds
 * its batch, its slot among the records in flight, or the fetching of its partition and others.
 * Its offset stays uncommitted until it finishes.
 */
export class RecordContext extends BaseRpcContext<[InboundMessage, () => void]> {
  constructor(message: InboundMessage, park: () => void) {
    super([message, park]);
  }

  park(): void {
    this.args[1]();
  }
}
