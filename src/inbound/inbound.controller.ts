import { Controller } from '@nestjs/common';
import { EventPattern } from '@nestjs/microservices';
import type { ConsumedRecord } from '../kafka/consumed-record';
import { RecordHandler, type RecordOutcome } from './record.handler';
import { INBOUND_EVENT } from './inbound-pattern';

/** The entry point of every consumed record; the transport awaits the returned outcome. */
@Controller()
export class InboundController {
  constructor(private readonly records: RecordHandler) {}

  /**
   * No `@Payload()`: a handler without parameter decorators gets the record as its first
   * argument as it is, and Nest skips its pipes pipeline, four promises per record (the record
   * is the transport's own object; there is nothing for a pipe to transform).
   */
  @EventPattern(INBOUND_EVENT)
  handle(record: ConsumedRecord): Promise<RecordOutcome> {
    return this.records.handle(record);
  }
}
