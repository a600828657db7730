/** How much the consumer holds at once: records fetched and not yet at their outcome. */
export interface WindowLimits {
  records: number;
  /** Bytes of the records' keys and values as fetched. */
  bytes: number;
}

/**
 * Fetching resumes once the window has drained to this share of its limits, not at the first
 * free slot, so that a full window does not pause and resume its partitions on every record.
 */
const RESUME_AT = 0.75;

/**
 * The in-flight window: admits fetched records while they fit in both limits and counts them out
 * as they reach their outcome. It bounds what a backlog can cost in memory, whatever is waiting
 * on Kafka. An empty window admits any one record, so a record larger than the byte limit still
 * gets through, alone.
 */
export class InFlightWindow {
  private records = 0;
  private bytes = 0;
  private listeners: Array<() => void> = [];

  constructor(private readonly limits: WindowLimits) {}

  /** Takes a record of `size` bytes in if it fits; false when the window is full. */
  tryEnter(size: number): boolean {
    const fits =
      this.records === 0 ||
      (this.records < this.limits.records && this.bytes + size <= this.limits.bytes);
    if (!fits) return false;
    this.records += 1;
    this.bytes += size;
    return true;
  }

  /** A record of `size` bytes left: it reached its outcome or no longer holds its place. */
  leave(size: number): void {
    this.records -= 1;
    this.bytes -= size;
    if (this.listeners.length > 0 && this.hasRoom) {
      const listeners = this.listeners;
      this.listeners = [];
      for (const listener of listeners) listener();
    }
  }

  /** Calls `listener` once, as soon as the window has drained to where fetching may resume. */
  onRoom(listener: () => void): void {
    if (this.hasRoom) listener();
    else this.listeners.push(listener);
  }

  get inFlight(): { records: number; bytes: number } {
    return { records: this.records, bytes: this.bytes };
  }

  private get hasRoom(): boolean {
    return (
      this.records <= this.limits.records * RESUME_AT && this.bytes <= this.limits.bytes * RESUME_AT
    );
  }
}
