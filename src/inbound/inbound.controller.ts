import { Controller } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import type { ConsumedRecord } from '../kafka/consumed-record';
import { RecordHandler, type RecordOutcome } from './record.handler';
import { INBOUND_EVENT, RecordContext } from './record-context';

/** The entry point of every consumed record; the transport awaits the returned outcome. */
@Controller()
export class InboundController {
  constructor(private readonly records: RecordHandler) {}

  @EventPattern(INBOUND_EVENT)
  handle(@Payload() record: ConsumedRecord, @Ctx() context: unknown): Promise<RecordOutcome> {
    const park = context instanceof RecordContext ? () => context.park() : undefined;
    return this.records.handle(record, park);
  }
}
