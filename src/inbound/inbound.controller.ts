import { Controller } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import type { ConsumedRecord } from '../kafka/consumed-record';
import { RecordHandler, type RecordOutcome } from './record.handler';
import { INBOUND_RECORDS } from './inbound-pattern';

/**
 * The entry point of every consumed record. The transport hands over the records of one
 * partition it admitted together, and follows each record's own outcome: one record's failure
 * costs only that record's offset.
 */
@Controller()
export class InboundController {
  constructor(private readonly records: RecordHandler) {}

  @EventPattern(INBOUND_RECORDS)
  handle(@Payload() records: ConsumedRecord[]): Array<Promise<RecordOutcome>> {
    return records.map((record) => this.records.handle(record));
  }
}
