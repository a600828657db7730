import type { Admin } from 'kafkajs';
import { createTopics, sleep } from '../../bench/infra/bench-kafka';

/**
 * Creates topics and returns once every partition has a leader. A broker that has only just
 * started answers "does not host this topic-partition" for a while after the creation; that is
 * retried until the deadline instead of failing the run (creating an existing topic is a no-op).
 */
export async function createTopicsPatiently(
  admin: Admin,
  topics: string[],
  partitions: number,
  options: { logAppendTime?: boolean } = {},
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await createTopics(admin, topics, partitions, options);
      const { topics: metadata } = await admin.fetchTopicMetadata({ topics });
      const led = metadata.every(
        (t) => t.partitions.length === partitions && t.partitions.every((p) => p.leader >= 0),
      );
      if (led) return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
    if (Date.now() > deadline) throw new Error(`topics without leaders after ${timeoutMs} ms`);
    await sleep(500);
  }
}
