import type { Admin, ITopicConfig } from 'kafkajs';
import { createTopics, sleep } from '../../bench/infra/bench-kafka';

export interface TopicLayout {
  logAppendTime?: boolean;
  /**
   * On the three-broker cluster: replication factor 3, and with `leader` that node first in
   * every partition's replica list, so that it leads them all (the node a broker kill aims at).
   */
  cluster?: { leader?: number };
}

/**
 * Creates topics and returns once every partition has a leader. A broker that has only just
 * started answers "does not host this topic-partition" for a while after the creation; that is
 * retried until the deadline instead of failing the run (creating an existing topic is a no-op).
 */
export async function createTopicsPatiently(
  admin: Admin,
  topics: string[],
  partitions: number,
  layout: TopicLayout = {},
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (layout.cluster) await createReplicated(admin, topics, partitions, layout);
      else await createTopics(admin, topics, partitions, layout);
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

async function createReplicated(
  admin: Admin,
  topics: string[],
  partitions: number,
  { logAppendTime, cluster }: TopicLayout,
): Promise<void> {
  const leader = cluster?.leader;
  const configEntries = logAppendTime
    ? [{ name: 'message.timestamp.type', value: 'LogAppendTime' }]
    : [];
  await admin.createTopics({
    waitForLeaders: false,
    topics: topics.map((topic): ITopicConfig =>
      leader === undefined
        ? { topic, numPartitions: partitions, replicationFactor: 3, configEntries }
        : { topic, replicaAssignment: ledBy(leader, partitions), configEntries },
    ),
  });
}

/**
 * Every partition's replicas with `leader` first (its preferred leader, which leads it from the
 * start) and the other two nodes alternating behind it, so that when it dies its partitions
 * move to both others, not all to one.
 */
export function ledBy(
  leader: number,
  partitions: number,
): Array<{ partition: number; replicas: number[] }> {
  const others = [1, 2, 3].filter((n) => n !== leader);
  return Array.from({ length: partitions }, (_, partition) => ({
    partition,
    replicas: [leader, ...(partition % 2 ? [...others].reverse() : others)],
  }));
}

/**
 * Runs `start` until it no longer fails with a retriable Kafka error, or the deadline. On the
 * cluster a node may not know a topic the controllers have just created, and a client whose
 * metadata request lands there is told UNKNOWN_TOPIC_OR_PARTITION for a moment.
 */
export async function whenTopicsKnown<T>(start: () => Promise<T>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await start();
    } catch (error) {
      if ((error as { retriable?: boolean }).retriable !== true || Date.now() > deadline)
        throw error;
    }
    await sleep(1_000);
  }
}
