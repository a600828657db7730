import { Partitioners, type Kafka, type Message } from 'kafkajs';
import { sleep } from '../infra/bench-kafka';
import { userSignedUp } from './event-factory';

const TICK_MS = 5;

/**
 * Publishes `user.signed_up.v1` events at a fixed rate for `warmupSeconds + seconds`: every 5 ms,
 * the events due by then, each stamped with its creation time. The creation time of every event
 * after the warm-up is recorded in `sentAt` (by event id) before the event is sent, so a result
 * can never arrive before its event is known; warm-up events travel the same path, on the same
 * producer, but are not recorded.
 *
 * One `send` at a time, and the events that fall due while one is unanswered go together in the
 * next: concurrent sends on one idempotent producer can take each other's sequence numbers when
 * a request fails and is retried (see the README's "Where the time goes now"), and kafkajs
 * already holds them back one request per broker, so waiting here costs no time.
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
  let waiting: Message[] = [];
  let sending: Promise<void> | undefined;
  let failure: Error | undefined;
  const sendWaiting = async (): Promise<void> => {
    while (waiting.length > 0) {
      const messages = waiting;
      waiting = [];
      await producer.send({ topic, acks: -1, messages });
    }
  };
  const startSending = (): Promise<void> =>
    sendWaiting()
      .catch((error: unknown) => {
        failure ??= error instanceof Error ? error : new Error(String(error));
      })
      .finally(() => {
        sending = undefined;
      });
  let made = 0;
  try {
    while (made < total && failure === undefined) {
      const due = Math.min(total, Math.floor(((Date.now() - started) * rate) / 1000));
      if (due > made) {
        const now = new Date();
        for (; made < due; made++) {
          const event = userSignedUp(made, now);
          if (made >= warmup) sentAt.set(event.id, now.getTime());
          waiting.push(event);
        }
      }
      // Not awaited here: a slow acknowledgement must not hold back the next tick's events.
      if (waiting.length > 0) sending ??= startSending();
      await sleep(TICK_MS);
    }
    await sending;
    if (failure === undefined) await sendWaiting();
    if (failure !== undefined) throw failure;
  } finally {
    await producer.disconnect();
  }
}
