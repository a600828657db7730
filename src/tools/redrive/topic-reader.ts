import { randomUUID } from 'node:crypto';
import type { Kafka, KafkaMessage } from 'kafkajs';

export type OnRecord = (topic: string, partition: number, message: KafkaMessage) => void;

/**
 * Reads `topics` from their first retained offset to the end each partition had when the read
 * began, then stops: records that arrive later are left for the next run. Reads committed records
 * only (a redrive run that was fenced or crashed left an aborted transaction, which never counts).
 *
 * The end is the last stable offset the broker reports (kafkajs lists offsets read-committed): a
 * transaction still open, or committed but with its markers not yet written, lies beyond it and
 * is left for the next run. A redrive run reads after fencing its transactional id, which the
 * broker grants only once the earlier runs' transactions are complete, so it sees all of those.
 * A read-committed consumer never receives the transaction markers that may sit at the end, so
 * progress is taken from kafkajs' batch events, which report the last offset of every fetched
 * batch, markers and aborted records included.
 */
export async function readToEnd(
  kafka: Kafka,
  topics: string[],
  onRecord: OnRecord,
  { groupPrefix, stallMs = 60_000 }: { groupPrefix: string; stallMs?: number },
): Promise<void> {
  const ends = await endOffsets(kafka, topics);
  const pending = new Set([...ends].filter(([, end]) => end.end > end.start).map(([k]) => k));
  if (pending.size === 0) return;
  // A group of its own that commits nothing: the broker forgets it once it is left.
  const consumer = kafka.consumer({
    groupId: `${groupPrefix}-${randomUUID()}`,
    readUncommitted: false,
    allowAutoTopicCreation: false,
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    const done = new Promise<void>((resolve, reject) => {
      // However long the topic, a read that makes no progress for `stallMs` gives up.
      const stalled = () =>
        reject(
          new Error(`reading ${[...pending].join(', ')} made no progress for ${stallMs / 1000} s`),
        );
      timer = setTimeout(stalled, stallMs);
      const progress = (topic: string, partition: number, lastOffset: string): void => {
        timer?.refresh();
        const key = `${topic}/${partition}`;
        const end = ends.get(key);
        if (end && BigInt(lastOffset) >= end.end - 1n && pending.delete(key) && !pending.size) {
          resolve();
        }
      };
      consumer.on(consumer.events.END_BATCH_PROCESS, ({ payload }) =>
        progress(payload.topic, payload.partition, payload.lastOffset),
      );
      consumer.on(consumer.events.CRASH, ({ payload }) => reject(payload.error));
    });
    // Awaited below; marked handled now, since it may fail while the consumer is connecting.
    done.catch(() => undefined);
    await consumer.connect();
    await consumer.subscribe({ topics, fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachMessage: ({ topic, partition, message }) => {
        const end = ends.get(`${topic}/${partition}`);
        if (end && BigInt(message.offset) < end.end) onRecord(topic, partition, message);
        return Promise.resolve();
      },
    });
    await done;
  } finally {
    clearTimeout(timer);
    await consumer.disconnect();
  }
}

async function endOffsets(
  kafka: Kafka,
  topics: string[],
): Promise<Map<string, { start: bigint; end: bigint }>> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const ends = new Map<string, { start: bigint; end: bigint }>();
    for (const topic of topics) {
      for (const { partition, low, high } of await admin.fetchTopicOffsets(topic)) {
        ends.set(`${topic}/${partition}`, { start: BigInt(low), end: BigInt(high) });
      }
    }
    return ends;
  } finally {
    await admin.disconnect();
  }
}
