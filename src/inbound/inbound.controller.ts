import { Controller } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import type { ConsumedRecord } from '../kafka/consumed-record';
import { RecordHandler, type RecordOutcome } from './record.handler';
import { INBOUND_EVENT } from './inbound-pattern';

/** The entry point of every consumed record; the transport awaits the returned outcome. */
@Controller()
export class InboundController {
  constructor(private readonly records: RecordHandler) {}

  @EventPattern(INBOUND_EVENT)
  handle(@Payload() record: ConsumedRecord): Promise<RecordOutcome> {
    return this.records.handle(record);
  }
}
