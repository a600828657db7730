import { BaseRpcContext } from '@nestjs/microservices';
import type { ConsumedRecord } from '../kafka/consumed-record';

/**
 * The context the transport hands the handler with each record. `park()` says the record's
 * outcome now waits on a timer (a contact-list window): from then on the record no longer holds
 * its batch, its slot among the records in flight, or the fetching of its partition and others.
 * Its offset stays uncommitted until it finishes.
 */
export class RecordContext extends BaseRpcContext<[ConsumedRecord, () => void]> {
  constructor(message: ConsumedRecord, park: () => void) {
    super([message, park]);
  }

  park(): void {
    this.args[1]();
  }
}

/** The `@EventPattern` every inbound topic is routed to (topic names are configuration). */
export const INBOUND_EVENT = 'mailbridge.inbound';
