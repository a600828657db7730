import type { Admin } from 'kafkajs';

/** End offset (exclusive) of every partition, as `topic:partition`. */
export async function endOffsets(admin: Admin, topics: string[]): Promise<Map<string, number>> {
  const ends = new Map<string, number>();
  for (const topic of topics) {
    for (const p of await admin.fetchTopicOffsets(topic))
      ends.set(`${topic}:${p.partition}`, Number(p.high));
  }
  return ends;
}

/**
 * Records of the input topics the group has not committed past: what a new member would be
 * handed again. A partition without a committed offset counts from its start.
 */
export async function groupLag(admin: Admin, groupId: string, topics: string[]): Promise<number> {
  const committed = await admin.fetchOffsets({ groupId, topics });
  let lag = 0;
  for (const topic of topics) {
    const offsets = await admin.fetchTopicOffsets(topic);
    const mine = committed.find((t) => t.topic === topic)?.partitions ?? [];
    for (const p of offsets) {
      const at = Number(mine.find((c) => c.partition === p.partition)?.offset ?? -1);
      lag += Number(p.high) - (at >= 0 ? at : Number(p.low));
    }
  }
  return lag;
}
