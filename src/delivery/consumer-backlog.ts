import { Injectable } from '@nestjs/common';

/**
 * How many records wait to be taken in by this instance's consumer: those of its partitions
 * beyond the last one admitted, up to each partition's high watermark as last fetched. The
 * transport knows; the campaign batcher asks, to keep a request gathering while a backlog would
 * fill it anyway. Inbound is upstream of delivery, so the composition root (`app.ts`) connects
 * the two; unconnected, nothing waits.
 */
@Injectable()
export class ConsumerBacklog {
  private reader: () => number = () => 0;

  readFrom(reader: () => number): void {
    this.reader = reader;
  }

  waiting(): number {
    return this.reader();
  }
}
