import type { IHeaders } from 'kafkajs';

/** One consumed Kafka record, as the transport hands it on: the bytes, not yet parsed. */
export interface ConsumedRecord {
  topic: string;
  partition: number;
  offset: string;
  timestamp: string;
  /** How the broker set `timestamp`: the producer's time, or its own on append (a topic setting). */
  timestampType?: 'CreateTime' | 'LogAppendTime';
  key: Buffer | null;
  value: Buffer | null;
  headers: IHeaders;
}
