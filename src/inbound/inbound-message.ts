import type { IHeaders } from 'kafkajs';

/** One consumed Kafka record, as the dispatch layer sees it. */
export interface InboundMessage {
  topic: string;
  partition: number;
  offset: string;
  timestamp: string;
  key: Buffer | null;
  value: Buffer | null;
  headers: IHeaders;
}

/** The `@EventPattern` every inbound topic is routed to (topic names are configuration). */
export const INBOUND_EVENT = 'mailbridge.inbound';
