import type { IHeaders, KafkaMessage } from 'kafkajs';

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

/** The record a fetched message of `topic`/`partition` is. */
export function toConsumedRecord(
  topic: string,
  partition: number,
  message: KafkaMessage,
): ConsumedRecord {
  return {
    topic,
    partition,
    offset: message.offset,
    timestamp: message.timestamp,
    timestampType: timestampTypeOf(message),
    key: message.key,
    value: message.value,
    headers: message.headers ?? {},
  };
}

/**
 * kafkajs decodes the record batch's timestamp type into each message's `batchContext` (1: the
 * broker's append time) without declaring it in its types.
 */
function timestampTypeOf(message: KafkaMessage): 'CreateTime' | 'LogAppendTime' {
  const context = (message as { batchContext?: { timestampType?: number } }).batchContext;
  return context?.timestampType === 1 ? 'LogAppendTime' : 'CreateTime';
}
