import { Partitioners, type Kafka, type TopicMessages } from 'kafkajs';
import { sleep } from '../../bench/infra/bench-kafka';
import type { ChaosWorkload } from './chaos-workload';

const TICK_MS = 20;
/** Sends waiting for an acknowledgement; beyond it the producer waits (a broker restart). */
const MAX_IN_FLIGHT = 50;

export interface ProduceReport {
  produced: number;
  seconds: number;
  /** Batches sent again after kafkajs gave up on them (a long broker restart). */
  resentBatches: number;
}

/**
 * Produces the workload at a steady rate, whatever the broker does: events due by the clock go
 * out every tick without waiting for earlier acknowledgements, and a send kafkajs gave up on is
 * sent again until it succeeds. Idempotent, so kafkajs's own retries never write an event
 * twice; a resent batch may, which the service must absorb like any redelivery.
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
  });
  await producer.connect();
  const started = Date.now();
  const inFlight = new Set<Promise<void>>();
  let made = 0;
  let resentBatches = 0;
  const sendUntilDone = async (batch: TopicMessages[]) => {
    for (;;) {
      try {
        await producer.sendBatch({ topicMessages: batch, acks: -1 });
        return;
      } catch {
        resentBatches++;
        await sleep(1_000);
      }
    }
  };
  try {
    while (made < workload.total) {
      const due = Math.min(workload.total, Math.floor(((Date.now() - started) * rate) / 1000));
      if (due > made && inFlight.size < MAX_IN_FLIGHT) {
        const at = new Date();
        const byTopic = {
          signup: [] as TopicMessages['messages'],
          order: [] as TopicMessages['messages'],
        };
        for (; made < due; made++) {
          const record = workload.make(made, at);
          byTopic[record.kind].push({ key: record.key, value: record.value });
        }
        const batch = (['signup', 'order'] as const)
          .filter((kind) => byTopic[kind].length > 0)
          .map((kind) => ({ topic: topics[kind], messages: byTopic[kind] }));
        const send = sendUntilDone(batch);
        inFlight.add(send);
        void send.finally(() => inFlight.delete(send));
        onProgress?.(made);
      }
      await sleep(TICK_MS);
    }
    await Promise.all(inFlight);
  } finally {
    await producer.disconnect().catch(() => undefined);
  }
  return { produced: made, seconds: (Date.now() - started) / 1000, resentBatches };
}
