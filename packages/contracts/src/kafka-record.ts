/**
 * A Kafka record as kafkajs produces (`Message`) and consumes (`KafkaMessage`) it, declared here
 * so that this package needs no Kafka client: either of kafkajs' types is assignable to it, and
 * {@link EncodedRecord} to kafkajs' `Message`.
 */
export type HeaderValue = Buffer | string | Array<Buffer | string> | undefined;

export interface KafkaRecord {
  key?: Buffer | string | null;
  value: Buffer | string | null;
  headers?: Record<string, HeaderValue>;
}

/** What {@link encodeEvent} returns: ready for kafkajs' `producer.send({ topic, messages })`. */
export interface EncodedRecord {
  key: string;
  value: string;
  headers: Record<string, string>;
}

/** A header's text (the first, if the header came more than once); undefined if absent. */
export function headerText(headers: KafkaRecord['headers'], name: string): string | undefined {
  const value = headers?.[name];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined ? undefined : first.toString();
}
