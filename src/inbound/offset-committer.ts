import type { Logger } from '@nestjs/common';
import type { Consumer } from 'kafkajs';

export interface PartitionOffset {
  topic: string;
  partition: number;
  /** The next offset to consume: one past the last finished record. */
  offset: string;
}

/** What the committer needs of a kafkajs consumer (a seam for the unit spec). */
export type CommitConsumer = Pick<Consumer, 'commitOffsets' | 'on' | 'events'>;

/**
 * The offsets of finished records: moved only forward, and counted as committed only when the
 * broker acknowledged them.
 *
 * kafkajs' `commitOffsets` resolves without committing anything once its runner stopped running
 * (from the first moment of `consumer.stop()`), so its promise proves nothing. Its COMMIT_OFFSETS
 * event does: kafkajs emits it only after the broker acknowledged every partition of the request.
 * An offset leaves `pending` only when that event covered it; anything else stays and is retried.
 *
 * Offsets are also only ever offered forward per partition and only by the owner: a batch still
 * running from before a consumer restart can finish after a newer batch of the same partition,
 * and a batch fetched before its partition was given away (and perhaps given back) must not
 * commit over what the owner in between committed.
 */
export class OffsetCommitter {
  private readonly pending = new Map<string, PartitionOffset>();
  /** The highest offset the broker acknowledged per partition, while it is ours. */
  private readonly acknowledged = new Map<string, bigint>();
  /** The join at which each partition we own was (last) given to us. */
  private readonly ownedSince = new Map<string, number>();
  private joins = 0;
  private running?: Promise<boolean>;
  private next?: Promise<boolean>;

  constructor(
    private readonly consumer: CommitConsumer,
    private readonly logger: Pick<Logger, 'warn' | 'debug'>,
  ) {
    consumer.on(consumer.events.COMMIT_OFFSETS, ({ payload }) => {
      for (const { topic, partitions } of payload.topics) {
        for (const p of partitions) {
          // kafkajs types the offset as a string; it arrives as a Long.
          const key = keyOf(topic, p.partition);
          const offset = BigInt(String(p.offset));
          if (offset > (this.acknowledged.get(key) ?? -1n)) this.acknowledged.set(key, offset);
        }
      }
    });
  }

  /** Counts joins: a batch remembers the one it was fetched under (see {@link offer}). */
  get generation(): number {
    return this.joins;
  }

  /** After each group join: partitions given away are another member's to commit now. */
  assign(assignment: Record<string, number[]>): void {
    this.joins += 1;
    const owned = new Set<string>();
    for (const [topic, partitions] of Object.entries(assignment)) {
      for (const partition of partitions) owned.add(keyOf(topic, partition));
    }
    for (const key of [...this.ownedSince.keys()]) {
      if (owned.has(key)) continue;
      this.ownedSince.delete(key);
      this.pending.delete(key);
      this.acknowledged.delete(key);
    }
    for (const key of owned) {
      if (this.ownedSince.has(key)) continue;
      this.ownedSince.set(key, this.joins);
      this.acknowledged.delete(key); // another member may have committed since we last owned it
    }
  }

  /**
   * Offers the next offset of a partition, from a batch fetched at join `generation`. Ignored
   * when it would move the partition backwards, or when the partition is not ours or was given
   * to us again after that batch was fetched.
   */
  offer(next: PartitionOffset, generation: number): void {
    const key = keyOf(next.topic, next.partition);
    const since = this.ownedSince.get(key);
    if (since === undefined || since > generation) return;
    const offset = BigInt(next.offset);
    if (offset <= (this.acknowledged.get(key) ?? -1n)) return;
    const known = this.pending.get(key);
    if (known && offset <= BigInt(known.offset)) return;
    this.pending.set(key, next);
  }

  /** Partitions whose finished offsets the broker has not acknowledged yet. */
  get uncommitted(): number {
    return this.pending.size;
  }

  /**
   * Commits what is pending; resolves true once the broker acknowledged all of it, false when
   * some stays pending. Never rejects. A call made while a commit runs is served by one more
   * commit after it, shared by every such call, so work finished meanwhile is included.
   */
  commit(): Promise<boolean> {
    if (!this.running) {
      this.running = this.commitPending().finally(() => (this.running = undefined));
      return this.running;
    }
    this.next ??= this.running.then(() => {
      this.next = undefined;
      return this.commit();
    });
    return this.next;
  }

  private async commitPending(): Promise<boolean> {
    if (this.pending.size === 0) return true;
    const offsets = [...this.pending.values()];
    try {
      await this.consumer.commitOffsets(offsets);
    } catch (error) {
      this.logger.warn(`offset commit failed, will retry: ${(error as Error).message}`);
      return false;
    }
    let unacknowledged = 0;
    for (const sent of offsets) {
      const key = keyOf(sent.topic, sent.partition);
      const acknowledged = this.acknowledged.get(key);
      if (acknowledged === undefined || acknowledged < BigInt(sent.offset)) unacknowledged += 1;
      else if (BigInt(this.pending.get(key)?.offset ?? '-1') <= acknowledged)
        this.pending.delete(key);
    }
    if (unacknowledged === 0) return true;
    this.logger.debug(
      `offset commit of ${unacknowledged} partition(s) not acknowledged (consumer not running); kept`,
    );
    return false;
  }
}

function keyOf(topic: string, partition: number): string {
  return `${topic}|${partition}`;
}
