import { Injectable } from '@nestjs/common';

interface PartitionWork {
  /** The offset after the last record fetched. */
  end: bigint;
  /** The offset after the last record that, with all before it, reached its outcome. */
  done: bigint;
  /** The partition's high watermark as of the last batch fetched from it. */
  high?: bigint;
}

/**
 * What the Kafka consumer is doing, as the health endpoints see it: whether it has joined its
 * group (readiness), whether it stopped for good, and whether the records it fetched move
 * (liveness). The transport reports; `HealthController` and `LivenessCheck` read.
 *
 * Work is tracked per partition, from fetched to finished, and survives a consumer restart as
 * long as the partition stays assigned: a consumer that crashes on the same record over and over
 * keeps its lag, so the stall clock keeps running.
 *
 * Membership is watched too: a member the group has not heard from (a join or a heartbeat) for
 * its session timeout has been dropped by the broker, whatever kafkajs believes, and is not
 * ready until the group hears from it again (a frozen or starved process, or a rejoin that does
 * not complete).
 */
@Injectable()
export class ConsumerStatus {
  private joined = false;
  private stopBegun = false;
  private problem?: string;
  private fatal?: string;
  private readonly work = new Map<string, PartitionWork>();
  /** When work last moved: a record finished, or work appeared where there was none. */
  private progressAt = 0;
  private crashes = 0;
  /** When the group last acknowledged this member: its join, or a heartbeat. */
  private heardAt?: number;
  /** The group's session timeout; none until the transport says (nothing is watched). */
  private sessionTimeoutMs = Infinity;

  /** Whether the service has begun to stop ({@link markStopping}). */
  get stopping(): boolean {
    return this.stopBegun;
  }

  markJoined(now = Date.now()): void {
    this.heard(now);
    if (this.fatal !== undefined || this.stopBegun) return;
    this.joined = true;
    this.problem = undefined;
  }

  /** The group drops a member it has not heard from for this long (`KAFKA_SESSION_TIMEOUT_MS`). */
  watchMembership(sessionTimeoutMs: number): void {
    this.sessionTimeoutMs = sessionTimeoutMs;
  }

  /** The group acknowledged this member: it joined, or a heartbeat was answered. */
  heard(now = Date.now()): void {
    this.heardAt = now;
  }

  /**
   * Since when the group has dropped this member, judged by the session timeout having passed
   * since it last heard from it; undefined while it is a member (or not joined at all, which
   * readiness says on its own).
   */
  droppedSince(now = Date.now()): number | undefined {
    if (!this.joined || this.heardAt === undefined) return undefined;
    const droppedAt = this.heardAt + this.sessionTimeoutMs;
    return now >= droppedAt ? droppedAt : undefined;
  }

  /**
   * The service has begun to stop (the first of Nest's stop hooks, before the transport's own
   * close): work that ends without an outcome from here on was given back by the stop, not a
   * failure to fetch again. Readiness says so too.
   */
  markStopping(): void {
    this.stopBegun = true;
    this.markDown('consumer is stopping');
  }

  markDown(problem: string): void {
    this.joined = false;
    this.problem = problem;
  }

  /** The consumer crashed (kafkajs restarts it, or not: see {@link markFailed}). */
  crashed(problem: string): void {
    this.crashes += 1;
    this.markDown(problem);
  }

  /** Crashes since start: each one refetches every unfinished record of every partition. */
  get crashCount(): number {
    return this.crashes;
  }

  /** The consumer crashed and will not be restarted: only a new process helps. */
  markFailed(problem: string): void {
    this.markDown(problem);
    this.fatal = problem;
  }

  /** After a rebalance: work on partitions given away is no longer ours to finish. */
  assigned(assignment: Record<string, number[]>): void {
    for (const key of this.work.keys()) {
      const [topic, partition] = splitKey(key);
      if (!assignment[topic]?.includes(partition)) this.work.delete(key);
    }
  }

  /** A batch of `topic`/`partition` from `firstOffset` to `lastOffset` was handed over. */
  fetched(
    topic: string,
    partition: number,
    firstOffset: string,
    lastOffset: string,
    now = Date.now(),
  ): void {
    if (this.stalledSince === undefined) this.progressAt = now; // the stall clock starts with the work
    const key = `${topic}|${partition}`;
    const end = BigInt(lastOffset) + 1n;
    const known = this.work.get(key);
    if (known) known.end = end > known.end ? end : known.end;
    else this.work.set(key, { end, done: BigInt(firstOffset) });
  }

  /** The high watermark the last batch fetched from `topic`/`partition` came with. */
  highWatermark(topic: string, partition: number, offset: string): void {
    const known = this.work.get(`${topic}|${partition}`);
    if (known) known.high = BigInt(offset);
  }

  /**
   * Per partition owned and fetched from: its high watermark as last fetched minus the offset
   * after its last record that, with all before it, reached its outcome (the offset committed
   * next). Partitions given away are gone from here at the rebalance.
   */
  *lag(): Iterable<{ topic: string; partition: number; lag: number }> {
    for (const [key, { high, done }] of this.work) {
      if (high === undefined) continue;
      const [topic, partition] = splitKey(key);
      yield { topic, partition, lag: high > done ? Number(high - done) : 0 };
    }
  }

  /**
   * Records of the partitions owned and fetched from that wait to be taken in: from the offset
   * after the last one admitted to the high watermark as last fetched.
   */
  waiting(): number {
    let waiting = 0;
    for (const { high, end } of this.work.values()) {
      if (high !== undefined && high > end) waiting += Number(high - end);
    }
    return waiting;
  }

  /** A record finished; `next` is the partition's new committable offset when it moved. */
  finished(topic: string, partition: number, next: string | undefined, now = Date.now()): void {
    this.progressAt = now;
    const known = this.work.get(`${topic}|${partition}`);
    if (known && next !== undefined && BigInt(next) > known.done) known.done = BigInt(next);
  }

  get ready(): boolean {
    return this.joined && this.droppedSince() === undefined;
  }

  get reason(): string | undefined {
    if (!this.joined) return this.problem ?? 'consumer has not joined its group yet';
    const now = Date.now();
    if (this.droppedSince(now) === undefined || this.heardAt === undefined) return undefined;
    const silent = Math.round((now - this.heardAt) / 1000);
    return `the group has not heard from this member for ${silent} s, past its session timeout: dropped, and not joined again yet`;
  }

  /** Why the consumer will never consume again, if that is so. */
  get failure(): string | undefined {
    return this.fatal;
  }

  /** Since when fetched records have waited without one finishing; undefined when none wait. */
  get stalledSince(): number | undefined {
    for (const { end, done } of this.work.values()) {
      if (end > done) return this.progressAt;
    }
    return undefined;
  }
}

function splitKey(key: string): [string, number] {
  const at = key.lastIndexOf('|');
  return [key.slice(0, at), Number(key.slice(at + 1))];
}
