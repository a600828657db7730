import { Kafka, logLevel, type Admin } from 'kafkajs';

/**
 * The harness's own client. Silent: its only errors worth seeing are the ones that fail a call,
 * and those are thrown; the rest is retried noise right after a topic is created.
 */
export function benchKafka(brokers: string[], clientId = 'mailbridge-bench'): Kafka {
  return new Kafka({
    clientId,
    brokers,
    logLevel: logLevel.NOTHING,
    retry: { retries: 8, initialRetryTime: 200 },
  });
}

/**
 * Creates topics with `partitions` partitions. Result topics take the broker's clock
 * (LogAppendTime), so "when was this result written" is one clock for every phase.
 */
export async function createTopics(
  admin: Admin,
  topics: string[],
  partitions: number,
  { logAppendTime = false } = {},
): Promise<void> {
  if (topics.length === 0) return;
  await admin.createTopics({
    // kafkajs waits by default, and gives up as described below.
    waitForLeaders: false,
    topics: topics.map((topic) => ({
      topic,
      numPartitions: partitions,
      replicationFactor: 1,
      configEntries: logAppendTime
        ? [{ name: 'message.timestamp.type', value: 'LogAppendTime' }]
        : [],
    })),
  });
  await waitForLeaders(admin, topics);
}

/**
 * Polls until every partition of `topics` has a leader. kafkajs' own `waitForLeaders` gives up at
 * the first UNKNOWN_TOPIC_OR_PARTITION, which a broker just started answers for a while after it
 * created the topic (the bench failed so, before measuring, in about half its latency runs).
 */
async function waitForLeaders(admin: Admin, topics: string[], timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const { topics: found } = await admin.fetchTopicMetadata({ topics });
      if (found.every((t) => t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0)))
        return;
    } catch (error) {
      if ((error as { type?: string }).type !== 'UNKNOWN_TOPIC_OR_PARTITION') throw error;
    }
    if (Date.now() > deadline)
      throw new Error(`no leader for ${topics.join(', ')} within ${timeoutMs / 1000} s`);
    await sleep(200);
  }
}

/** Sum of the partitions' end offsets: how many records a topic holds. */
export async function topicSize(admin: Admin, topic: string): Promise<number> {
  const offsets = await admin.fetchTopicOffsets(topic);
  return offsets.reduce((sum, p) => sum + Number(p.high) - Number(p.low), 0);
}

/**
 * Polls until the group is Stable with at least one member: the earliest moment its consumer can
 * fetch. That moment is the start of a phase's measured window for processes we cannot
 * instrument (the real service, the naive service).
 */
export async function waitForStableGroup(
  admin: Admin,
  groupId: string,
  timeoutMs: number,
  isAlive: () => boolean,
): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { groups } = await admin.describeGroups([groupId]);
    const group = groups[0];
    if (group?.state === 'Stable' && group.members.length > 0) return Date.now();
    if (!isAlive()) throw new Error(`the process of group ${groupId} exited before joining`);
    if (Date.now() > deadline) throw new Error(`group ${groupId} not stable after ${timeoutMs} ms`);
    await sleep(25);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
