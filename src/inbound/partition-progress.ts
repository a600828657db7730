/**
 * Tracks which offsets of one fetched batch reached their outcome, and reports the highest offset
 * below which *every* record is done: only that one may be committed, so a crash never skips a
 * record that finished later than its successors.
 */
export class PartitionProgress {
  private readonly done: boolean[];
  private next = 0;

  constructor(private readonly offsets: readonly string[]) {
    this.done = offsets.map(() => false);
  }

  /** Marks record `index` done; returns the new committable offset, if it moved. */
  complete(index: number): string | undefined {
    this.done[index] = true;
    const before = this.next;
    while (this.next < this.done.length && this.done[this.next]) this.next += 1;
    return this.next > before ? this.offsets[this.next - 1] : undefined;
  }
}
