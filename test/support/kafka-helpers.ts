import { randomUUID } from 'node:crypto';
import { waitForLeaders } from '../../src/kafka/kafka.provider';
import {
  Kafka,
  KafkaJSError,
  logLevel,
  Partitioners,
  type Admin,
  type Consumer,
  type KafkaMessage,
} from 'kafkajs';
import { decodeResult } from './result-events';

/** The broker of this test run: global-setup's, or the one KAFKA_BROKERS names. */
export function testBrokers(): string[] {
  const brokers = process.env.KAFKA_BROKERS;
  if (!brokers)
    throw new Error('KAFKA_BROKERS is not set: run the tests through jest (global setup)');
  return brokers.split(',');
}

export function testKafka(): Kafka {
  return new Kafka({
    clientId: `test-${randomUUID().slice(0, 8)}`,
    brokers: testBrokers(),
    logLevel: logLevel.NOTHING,
  });
}

/** A name no other test uses, so tests never see each other's topics or groups. */
export function uniqueName(prefix: string): string {
  return `${prefix}.${randomUUID().slice(0, 12)}`;
}

/**
 * Creates `topics` and returns once the broker can serve them and the groups of `groupIds`: a
 * broker that just started answers "The coordinator is loading" for a while, and a consumer that
 * meets that on its first join crashes and restarts, which is not what a test means to exercise.
 */
export async function createTopics(
  kafka: Kafka,
  topics: string[],
  numPartitions = 3,
  groupIds: string[] = [],
): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    await admin.createTopics({
      waitForLeaders: false, // kafkajs' own wait gives up on a cold KRaft broker
      topics: topics.map((topic) => ({ topic, numPartitions })),
    });
    await waitForLeaders(admin, topics);
  } finally {
    await admin.disconnect();
  }
  await waitForCoordinator(kafka, groupIds);
}

/**
 * Waits, with a deadline, until the group coordinator answers for each of `groupIds` (and for one
 * throwaway group when none is given): describing a group succeeds only once the coordinator of
 * its partition of `__consumer_offsets` exists and has loaded.
 */
export async function waitForCoordinator(kafka: Kafka, groupIds: string[] = []): Promise<void> {
  const groups = groupIds.length > 0 ? groupIds : [uniqueName('test-coordinator-probe')];
  const admin = kafka.admin({ retry: { retries: 0 } });
  await admin.connect();
  try {
    await waitFor(
      () =>
        admin.describeGroups(groups).then(
          () => true,
          () => undefined,
        ),
      { timeoutMs: 60_000, intervalMs: 200, what: `the group coordinator of ${groups.join(', ')}` },
    );
  } finally {
    await admin.disconnect();
  }
}

export async function produce(
  kafka: Kafka,
  topic: string,
  messages: Array<{ key?: string; value: string | Buffer; headers?: Record<string, string> }>,
): Promise<void> {
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  try {
    await producer.send({ topic, acks: -1, messages });
  } finally {
    await producer.disconnect();
  }
}

/**
 * Records of `topic` the group has not committed past: the sum over partitions of the high
 * watermark minus the committed offset (a partition without a commit counts from its start).
 * A broker that fails to answer is asked again, for up to 60 s: on a loaded machine the single
 * test broker's controller can fall behind its own heartbeats, fence it for a while and reload
 * its group coordinator (`NOT_COORDINATOR`, then no coordinator found at all).
 */
export async function groupLag(
  kafka: Kafka,
  groupId: string,
  topic: string,
  admin?: Admin,
): Promise<number> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      return await groupLagOnce(kafka, groupId, topic, admin);
    } catch (error) {
      if (!(error instanceof KafkaJSError) || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

/** With `connected`, the caller's admin client (a sampler's); otherwise one of its own. */
async function groupLagOnce(
  kafka: Kafka,
  groupId: string,
  topic: string,
  connected?: Admin,
): Promise<number> {
  const admin = connected ?? kafka.admin();
  if (!connected) await admin.connect();
  try {
    const ends = await admin.fetchTopicOffsets(topic);
    const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
    let lag = 0;
    for (const end of ends) {
      const offset = committed.partitions.find((p) => p.partition === end.partition)?.offset;
      const from = offset === undefined || offset === '-1' ? end.low : offset;
      lag += Number(end.high) - Number(from);
    }
    return lag;
  } finally {
    if (!connected) await admin.disconnect();
  }
}

/** Polls `check` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function waitFor<T>(
  check: () => T | undefined | Promise<T | undefined>,
  { timeoutMs = 30_000, intervalMs = 50, what = 'condition' } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * Collects every record of `topics` from the beginning, until stopped, each once: a record read
 * again (the collector's own consumer restarting from its last commit on a loaded machine) is
 * the same record, at the same offset, and is not counted twice. A record the service wrote twice
 * has two offsets, and is.
 */
export class TopicCollector {
  readonly messages: Array<KafkaMessage & { topic: string; partition: number }> = [];
  private readonly seen = new Set<string>();
  private consumer?: Consumer;

  constructor(private readonly kafka: Kafka) {}

  async start(topics: string[]): Promise<this> {
    const groupId = uniqueName('test-collector');
    await waitForCoordinator(this.kafka, [groupId]);
    this.consumer = this.kafka.consumer({ groupId });
    await this.consumer.connect();
    await this.consumer.subscribe({ topics, fromBeginning: true });
    await this.consumer.run({
      eachMessage: ({ topic, partition, message }) => {
        const at = `${topic}/${partition}@${message.offset}`;
        if (!this.seen.has(at)) {
          this.seen.add(at);
          this.messages.push({ ...message, topic, partition });
        }
        return Promise.resolve();
      },
    });
    this.consumer.on(this.consumer.events.CRASH, ({ payload }) => {
      process.stderr.write(
        `[collector] consumer crashed (${payload.error.name}: ${payload.error.message}); restart: ${payload.restart}\n`,
      );
    });
    return this;
  }

  json<T>(topic: string): T[] {
    return this.messages
      .filter((m) => m.topic === topic)
      .map((m) => JSON.parse(m.value!.toString()) as T);
  }

  /** The result events of `topic`, each decoded as a CloudEvent (either mode) by the SDK. */
  results<T>(topic: string): T[] {
    return this.messages.filter((m) => m.topic === topic).map((m) => decodeResult<T>(m));
  }

  /**
   * The source events `topic` has answered, each once: results are keyed to their source event
   * and may repeat (a consumer that rejoins publishes again what it had not committed), so a test
   * that waits for every event counts these, not records.
   */
  answered(topic: string): Set<string> {
    return new Set(this.results<{ sourceeventid: string }>(topic).map((r) => r.sourceeventid));
  }

  count(topic: string): number {
    return this.messages.filter((m) => m.topic === topic).length;
  }

  async stop(): Promise<void> {
    await this.consumer?.disconnect();
  }
}
