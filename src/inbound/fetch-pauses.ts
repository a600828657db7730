import type { Logger } from '@nestjs/common';
import type { Consumer } from 'kafkajs';

/** What pauses keep of a kafkajs consumer (a seam for the unit spec). */
export type PausableConsumer = Pick<Consumer, 'pause' | 'resume'>;

/**
 * Every reason fetching is paused, in one place, so that lifting one reason never lifts another:
 * the vendor gate and the stop pause whole topics; a rewind holds one partition for a moment.
 * kafkajs keeps a single paused flag per partition, and pausing a partition of a paused topic
 * even unpauses the rest of that topic, so partitions are paused and resumed only while their
 * topics run, and held partitions are paused again whenever the topics resume.
 */
export class FetchPauses {
  private gateClosed = false;
  private stopping = false;
  private readonly held = new Map<string, { topic: string; partition: number }>();

  constructor(
    private readonly consumer: PausableConsumer,
    private readonly topics: string[],
    private readonly logger: Pick<Logger, 'debug'>,
  ) {}

  /** The vendor gate closed (pause everything) or opened (resume what nothing else holds). */
  gate(open: boolean): void {
    if (this.stopping || open === !this.gateClosed) return;
    this.gateClosed = !open;
    if (!open) {
      this.call(
        'pause',
        this.topics.map((topic) => ({ topic })),
      );
      return;
    }
    this.call(
      'resume',
      this.topics.map((topic) => ({ topic })),
    );
    for (const { topic, partition } of this.held.values()) {
      this.call('pause', [{ topic, partitions: [partition] }]);
    }
  }

  /** The stop began: nothing is fetched again. */
  stop(): void {
    this.stopping = true;
    this.call(
      'pause',
      this.topics.map((topic) => ({ topic })),
    );
  }

  /** Stops fetching one partition until {@link release}. */
  hold(topic: string, partition: number): void {
    const key = `${topic}|${partition}`;
    if (this.held.has(key)) return;
    this.held.set(key, { topic, partition });
    if (this.running) this.call('pause', [{ topic, partitions: [partition] }]);
  }

  release(topic: string, partition: number): void {
    if (!this.held.delete(`${topic}|${partition}`)) return;
    if (this.running) this.call('resume', [{ topic, partitions: [partition] }]);
  }

  /** Whether the topics are fetched at all (neither the gate nor the stop paused them). */
  private get running(): boolean {
    return !this.gateClosed && !this.stopping;
  }

  private call(
    method: 'pause' | 'resume',
    what: Array<{ topic: string; partitions?: number[] }>,
  ): void {
    try {
      this.consumer[method](what);
    } catch (error) {
      // Not running yet (a stop during start): there is nothing to fetch anyway.
      this.logger.debug(`${method}: ${(error as Error).message}`);
    }
  }
}
