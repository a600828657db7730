import type { ConsumerCommitOffsetsEvent } from 'kafkajs';
import { OffsetCommitter, type CommitConsumer, type PartitionOffset } from './offset-committer';

const COMMIT_OFFSETS = 'consumer.commit_offsets';

/**
 * A stand-in for a kafkajs consumer: `commitOffsets` records the request and, while `running`,
 * emits COMMIT_OFFSETS as kafkajs does once the broker acknowledged it. When not running it
 * resolves without committing, as kafkajs' runner does after `stop()`.
 */
class FakeConsumer {
  running = true;
  fail?: Error;
  readonly requests: PartitionOffset[][] = [];
  readonly events = { COMMIT_OFFSETS } as CommitConsumer['events'];
  private listener?: (event: ConsumerCommitOffsetsEvent) => void;

  on(_event: string, listener: (event: ConsumerCommitOffsetsEvent) => void) {
    this.listener = listener;
    return () => undefined;
  }

  commitOffsets(offsets: PartitionOffset[]): Promise<void> {
    this.requests.push(offsets);
    if (this.fail) return Promise.reject(this.fail);
    if (!this.running) return Promise.resolve();
    const topics = [...new Set(offsets.map((o) => o.topic))].map((topic) => ({
      topic,
      partitions: offsets
        .filter((o) => o.topic === topic)
        .map((o) => ({ partition: o.partition, offset: o.offset })),
    }));
    const payload = { groupId: 'g', memberId: 'm', groupGenerationId: 1, topics };
    this.listener?.({ id: '1', type: COMMIT_OFFSETS, timestamp: Date.now(), payload });
    return Promise.resolve();
  }
}

const quiet = { warn: () => undefined, debug: () => undefined };

function setUp(assignment: Record<string, number[]> = { t: [0, 1] }) {
  const consumer = new FakeConsumer();
  const committer = new OffsetCommitter(consumer as unknown as CommitConsumer, quiet);
  committer.assign(assignment);
  return { consumer, committer };
}

const at = (partition: number, offset: number): PartitionOffset => ({
  topic: 't',
  partition,
  offset: String(offset),
});

describe(OffsetCommitter.name, () => {
  it('counts a commit only when the broker acknowledged it, and keeps the offsets otherwise', async () => {
    const { consumer, committer } = setUp();
    committer.offer(at(0, 10), committer.generation);
    consumer.running = false; // as after consumer.stop(): commitOffsets resolves, commits nothing
    expect(await committer.commit()).toBe(false);
    expect(committer.uncommitted).toBe(1);

    consumer.running = true;
    expect(await committer.commit()).toBe(true);
    expect(committer.uncommitted).toBe(0);
    expect(consumer.requests.at(-1)).toEqual([at(0, 10)]);
  });

  it('keeps the offsets when the commit fails', async () => {
    const { consumer, committer } = setUp();
    committer.offer(at(1, 5), committer.generation);
    consumer.fail = new Error('The coordinator is loading');
    expect(await committer.commit()).toBe(false);
    expect(committer.uncommitted).toBe(1);
  });

  it('never moves a partition backwards: an older batch finishing late offers less', async () => {
    const { consumer, committer } = setUp();
    const generation = committer.generation;
    committer.offer(at(0, 20), generation); // a newer batch, after a consumer restart
    committer.offer(at(0, 10), generation); // the older batch of the same partition finishes
    await committer.commit();
    committer.offer(at(0, 15), generation); // and still lower than what the broker has
    expect(await committer.commit()).toBe(true);
    expect(consumer.requests).toEqual([[at(0, 20)]]);
  });

  it('commits only partitions it owns, and not from batches fetched before it owned them again', async () => {
    const { consumer, committer } = setUp({ t: [0, 1] });
    const before = committer.generation;
    committer.assign({ t: [1] }); // partition 0 given away
    committer.offer(at(0, 7), before);
    committer.assign({ t: [0, 1] }); // and given back: another member may have committed meanwhile
    committer.offer(at(0, 8), before);
    committer.offer(at(1, 3), before); // partition 1 stayed ours throughout
    await committer.commit();
    expect(consumer.requests).toEqual([[at(1, 3)]]);
  });

  it('serves calls made during a commit with one more commit that includes newer work', async () => {
    const { consumer, committer } = setUp();
    committer.offer(at(0, 1), committer.generation);
    const first = committer.commit();
    committer.offer(at(0, 2), committer.generation);
    const second = committer.commit();
    const third = committer.commit();
    expect(await Promise.all([first, second, third])).toEqual([true, true, true]);
    expect(consumer.requests).toEqual([[at(0, 1)], [at(0, 2)]]);
  });
});
