import { CloudEvent, Kafka, type KafkaMessage as CloudEventsKafkaMessage } from 'cloudevents';
import type { IHeaders, KafkaMessage } from 'kafkajs';

/**
 * A result record decoded by the CloudEvents SDK's Kafka binding (`Kafka.toEvent`), in either
 * content mode, and validated by it (`validate()`: specversion, required attributes, extension
 * names): what a subscriber using the SDK sees. Returned as a plain object of its attributes and
 * `data`, which is what the result contracts (`src/contracts/email-*.v1.ts`) describe.
 */
export function decodeResult<T>(message: Pick<KafkaMessage, 'key' | 'value' | 'headers'>): T {
  const event = Kafka.toEvent({
    key: message.key?.toString() ?? '',
    value: message.value?.toString() ?? '',
    headers: textHeaders(message.headers),
  } as unknown as CloudEventsKafkaMessage<unknown>);
  if (Array.isArray(event)) throw new Error('a result record held a batch of CloudEvents');
  const single = event as CloudEvent<unknown>;
  single.validate();
  // The SDK keeps the record key as a `partitionkey` attribute; it is not part of the result.
  const { partitionkey, ...attributes } = single.toJSON();
  void partitionkey;
  return attributes as T;
}

/** kafkajs gives header values as Buffers; the SDK reads strings. */
export function textHeaders(headers: IHeaders | undefined): Record<string, string> {
  const text: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (value !== undefined) text[name] = Array.isArray(value) ? String(value[0]) : String(value);
  }
  return text;
}
