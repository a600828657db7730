import type { IHeaders } from 'kafkajs';

/** One consumed Kafka record, as the transport hands it on: the bytes, not yet parsed. */
export interface ConsumedRecord {
  topic: string;
  partition: number;
  offset: string;
  timestamp: string;
  key: Buffer | null;
  value: Buffer | null;
  headers: IHeaders;
}
