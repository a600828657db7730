/**
 * Which fetched records of one partition reached their outcome, across batches, and the offset
 * below which *every* record is done: only that one may be committed, so a crash never skips a
 * record that finished later than its successors. Records finish out of order for good reasons:
 * they run concurrently, and one waiting for its campaign batch or the vendor finishes after
 * records fetched in later batches.
 *
 * One instance serves one partition for one ownership of it; the transport starts a new one after
 * a rebalance or a rewind, and {@link retire}s the old one so that its stragglers commit nothing.
 */
export class PartitionProgress {
  /** Fetched offsets in fetch order, from the first one not yet done. */
  private offsets: bigint[] = [];
  private head = 0;
  private readonly done = new Set<bigint>();
  private highest = -1n;
  private retiredFlag = false;

  constructor(readonly generation: number) {}

  /** Offsets of a newly fetched batch. A refetched offset already known is not added twice. */
  add(offsets: readonly string[]): void {
    for (const text of offsets) {
      const offset = BigInt(text);
      if (offset <= this.highest) continue;
      this.offsets.push(offset);
      this.highest = offset;
    }
  }

  /**
   * Marks a record done; returns the partition's new committable offset (one past the last record
   * that, with all before it, is done) if it moved. A retired instance never returns one.
   */
  complete(offset: string): string | undefined {
    this.done.add(BigInt(offset));
    const before = this.head;
    while (this.head < this.offsets.length && this.done.delete(this.offsets[this.head])) {
      this.head += 1;
    }
    if (this.head === before || this.retiredFlag) return undefined;
    const next = String(this.offsets[this.head - 1] + 1n);
    if (this.head > 1024 && this.head * 2 > this.offsets.length) {
      this.offsets = this.offsets.slice(this.head);
      this.head = 0;
    }
    return next;
  }

  /** The lowest fetched offset not done yet: where fetching again must begin to skip nothing. */
  get firstUnfinished(): string | undefined {
    return this.head < this.offsets.length ? String(this.offsets[this.head]) : undefined;
  }

  /** Records fetched and not done yet. */
  get outstanding(): number {
    return this.offsets.length - this.head;
  }

  /** From now on this instance reports nothing: the partition was rewound or given away. */
  retire(): void {
    this.retiredFlag = true;
  }

  get retired(): boolean {
    return this.retiredFlag;
  }
}
