import { Partitioners, type Kafka } from 'kafkajs';
import { sleep } from '../infra/bench-kafka';
import { userSignedUp } from './event-factory';

const TICK_MS = 5;

/**
 * Publishes `user.signed_up.v1` events at a fixed rate for `warmupSeconds + seconds`: every 5 ms,
 * the events due by then, each stamped with its creation time. The creation time of every event
 * after the warm-up is recorded in `sentAt` (by event id) before the event is sent, so a result
 * can never arrive before its event is known; warm-up events travel the same path, on the same
 * producer, but are not recorded.
 */
export async function producePaced(
  kafka: Kafka,
  topic: string,
  rate: number,
  seconds: number,
  sentAt: Map<string, number>,
  warmupSeconds = 0,
): Promise<void> {
  const producer = kafka.producer({
    createPartitioner: Partitioners.DefaultPartitioner,
    idempotent: true,
  });
  await producer.connect();
  const warmup = Math.round(rate * warmupSeconds);
  const total = warmup + Math.round(rate * seconds);
  const started = Date.now();
  const inFlight = new Set<Promise<unknown>>();
  let made = 0;
  try {
    while (made < total) {
      const due = Math.min(total, Math.floor(((Date.now() - started) * rate) / 1000));
      if (due > made) {
        const now = new Date();
        const messages = [];
        for (; made < due; made++) {
          const event = userSignedUp(made, now);
          if (made >= warmup) sentAt.set(event.id, now.getTime());
          messages.push(event);
        }
        // Not awaited one by one: a slow acknowledgement must not hold back the next tick.
        const send = producer.send({ topic, acks: -1, messages });
        inFlight.add(send);
        void send.finally(() => inFlight.delete(send));
      }
      await sleep(TICK_MS);
    }
    await Promise.all(inFlight);
  } finally {
    await producer.disconnect();
  }
}
