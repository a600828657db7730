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
  // Idempotent: a retried chunk (a leader not yet known right after topic creation) must not
  // write its events twice.
  const producer = kafka.producer({
    createPartitioner: Partitioners.DefaultPartitioner,
    idempotent: true,
  });
  await producer.connect();
  try {
    let next = 0;
    const worker = async () => {
      while (next < count) {
        const from = next;
        next = Math.min(count, next + CHUNK);
        const at = new Date();
        const messages = [];
        for (let n = from; n < next; n++) messages.push(make(n, at));
        await producer.send({ topic, acks: -1, messages });
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  } finally {
    await producer.disconnect();
  }
  return { count, ms: Date.now() - started };
}
