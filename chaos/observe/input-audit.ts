import { randomUUID } from 'node:crypto';
import type { Admin, Kafka } from 'kafkajs';
import { sleep } from '../../bench/infra/bench-kafka';
import { endOffsets } from './group-lag';

export interface InputAudit {
  records: number;
  /** Event ids present on the input topics. */
  ids: Set<string>;
  /** Events present more than once (a producer retry the service must absorb). */
  duplicated: number;
}

/**
 * Reads the input topics back to their end: what the service was really given. The producer's
 * word is not enough; an event that never reached the topic is the harness's loss, not the
 * service's, and must not be counted against it.
 */
export async function auditInput(
  kafka: Kafka,
  admin: Admin,
  topics: string[],
  timeoutMs = 60_000,
): Promise<InputAudit> {
  const ends = await endOffsets(admin, topics);
  const total = [...ends.values()].reduce((sum, end) => sum + end, 0);
  const seen = new Map<string, number>();
  let records = 0;
  const consumer = kafka.consumer({
    groupId: `chaos-input-audit-${randomUUID()}`,
    maxWaitTimeInMs: 200,
  });
  await consumer.connect();
  try {
    await consumer.subscribe({ topics, fromBeginning: true });
    const read = new Set<string>();
    await consumer.run({
      eachMessage: ({ topic, partition, message }) => {
        const position = `${topic}:${partition}:${message.offset}`;
        if (read.has(position)) return Promise.resolve();
        read.add(position);
        records++;
        try {
          const id = (JSON.parse(message.value?.toString('utf8') ?? 'null') as { id?: unknown })
            ?.id;
          if (typeof id === 'string') seen.set(id, (seen.get(id) ?? 0) + 1);
        } catch {
          // Not ours: the harness produces JSON only.
        }
        return Promise.resolve();
      },
    });
    const deadline = Date.now() + timeoutMs;
    while (records < total && Date.now() < deadline) await sleep(200);
  } finally {
    await consumer.disconnect().catch(() => undefined);
  }
  if (records < total)
    throw new Error(`read ${records} of ${total} input records within ${timeoutMs} ms`);
  return {
    records,
    ids: new Set(seen.keys()),
    duplicated: [...seen.values()].filter((n) => n > 1).length,
  };
}
