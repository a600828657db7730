import type { EventEmitter } from 'node:events';

/**
 * Log lines the destination refused because the most it may hold of lines not yet written
 * (`LOG_BUFFER_MAX_BYTES`) was waiting already: whatever reads stdout (the container runtime, a
 * log shipper) had not kept up. Held instead, a line per event would keep a backlog's lines in
 * memory until the heap ran out. Lines are dropped whole; each run of drops is said in one
 * warning as soon as the destination has written again, and all are counted
 * (`mailbridge_log_lines_dropped_total`).
 */
export class DroppedLines {
  private dropped = 0;
  private unreported = 0;
  private reportQueued = false;

  constructor(
    private readonly limitBytes: number,
    private readonly warn: (message: string) => void,
  ) {}

  /** Follows a pino destination (sonic-boom): its `drop` events, and the `write` after them. */
  watch(destination: EventEmitter): void {
    destination.on('drop', () => {
      this.dropped += 1;
      this.unreported += 1;
    });
    destination.on('write', () => {
      if (this.unreported === 0 || this.reportQueued) return;
      this.reportQueued = true;
      // `write` comes before the destination lets go of what it wrote: said once it has.
      setImmediate(() => this.report());
    });
  }

  /** Every line dropped since the start. */
  get total(): number {
    return this.dropped;
  }

  private report(): void {
    this.reportQueued = false;
    const lines = this.unreported;
    this.unreported = 0;
    const before = this.dropped;
    this.warn(
      `${lines} log line${lines === 1 ? '' : 's'} dropped: stdout was not read as fast as they ` +
        `came, and LOG_BUFFER_MAX_BYTES (${this.limitBytes} bytes) of lines waited already`,
    );
    // Dropped in its turn, the warning counts itself: the next one says these lines too.
    if (this.dropped > before) this.unreported += lines;
  }
}
