import { Partitioners, type Kafka, type Message, type TopicMessages } from 'kafkajs';
import { sleep } from '../../bench/infra/bench-kafka';
import type { ChaosWorkload } from './chaos-workload';

const TICK_MS = 20;

export interface ProduceReport {
  produced: number;
  seconds: number;
  /** Batches sent again after kafkajs gave up on them (a long broker restart). */
  resentBatches: number;
}

/**
 * Produces the workload at a steady rate, whatever the broker does: every tick, the events due
 * by the clock go out as one batch. One send at a time: kafkajs's idempotent producer numbers
 * its batches per partition, and with several sends in flight across a broker restart it was
 * seen to write one event twice and drop another as a "duplicate". While a send waits (a
 * broker restart), due events gather and leave together after it. A send kafkajs gave up on is
 * sent again until it succeeds; the input audit then counts any event written twice.
 */
export async function producePaced(
  kafka: Kafka,
  workload: ChaosWorkload,
  topics: { signup: string; order: string },
  rate: number,
  onProgress?: (produced: number) => void,
): Promise<ProduceReport> {
  const producer = kafka.producer({
    createPartitioner: Partitioners.DefaultPartitioner,
    idempotent: true,
    maxInFlightRequests: 1,
  });
  await producer.connect();
  const started = Date.now();
  let made = 0;
  let resentBatches = 0;
  try {
    while (made < workload.total) {
      const due = Math.min(workload.total, Math.floor(((Date.now() - started) * rate) / 1000));
      if (due > made) {
        const at = new Date();
        const byTopic = { signup: [] as Message[], order: [] as Message[] };
        for (; made < due; made++) {
          const record = workload.make(made, at);
          byTopic[record.kind].push({ key: record.key, value: record.value });
        }
        const batch: TopicMessages[] = (['signup', 'order'] as const)
          .filter((kind) => byTopic[kind].length > 0)
          .map((kind) => ({ topic: topics[kind], messages: byTopic[kind] }));
        for (;;) {
          try {
            await producer.sendBatch({ topicMessages: batch, acks: -1 });
            break;
          } catch {
            resentBatches++;
            await sleep(1_000);
          }
        }
        onProgress?.(made);
      }
      await sleep(TICK_MS);
    }
  } finally {
    await producer.disconnect().catch(() => undefined);
  }
  return { produced: made, seconds: (Date.now() - started) / 1000, resentBatches };
}
