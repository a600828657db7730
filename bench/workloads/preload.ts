import { Partitioners, type Kafka } from 'kafkajs';
import type { BenchEvent } from './event-factory';

const CHUNK = 4_000;
const IN_FLIGHT = 4;

/**
 * Writes `count` events made by `make` to `topic`, in chunks sent a few at a time. Chunks stay
 * well under the broker's 1 MB record-batch limit per partition.
 */
export async function preload(
  kafka: Kafka,
  topic: string,
  count: number,
  make: (n: number, at: Date) => BenchEvent,
): Promise<{ count: number; ms: number }> {
  const started = Date.now();
  let next = 0;
  // Idempotent: a retried chunk (a leader not yet known right after topic creation) must not
  // write its events twice. One producer per worker, each with one send at a time: kafkajs hands
  // a failed request's sequence numbers back for its retry, a concurrent send on the same
  // producer can take them first, and where the failed request was written in part the broker
  // then refuses a send as OUT_OF_ORDER_SEQUENCE_NUMBER (seen once, four sends on one producer
  // preloading a broker just started).
  const worker = async () => {
    const producer = kafka.producer({
      createPartitioner: Partitioners.DefaultPartitioner,
      idempotent: true,
    });
    await producer.connect();
    try {
      while (next < count) {
        const from = next;
        next = Math.min(count, next + CHUNK);
        const at = new Date();
        const messages = [];
        for (let n = from; n < next; n++) messages.push(make(n, at));
        await producer.send({ topic, acks: -1, messages });
      }
    } finally {
      await producer.disconnect();
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return { count, ms: Date.now() - started };
}
