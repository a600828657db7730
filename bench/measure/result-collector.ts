import { randomUUID } from 'node:crypto';
import type { Consumer, IHeaders, Kafka } from 'kafkajs';

/** What a phase left on one result topic. */
export interface TopicTally {
  count: number;
  firstTs: number;
  lastTs: number;
}

export interface CollectorOptions {
  /** Source event id → when it was created (ms), for event-to-result latency. */
  sentAt?: Map<string, number>;
  /** Count results per second of broker time (the backlog test's drain curve). */
  perSecond?: boolean;
  /** Track correlation ids to count results that answer the same event twice. */
  checkDuplicates?: boolean;
}

/**
 * Reads a phase's result topics from the beginning while the phase runs. Timestamps are the
 * broker's LogAppendTime, so "when the result was written" does not depend on who wrote it.
 */
export class ResultCollector {
  readonly tallies = new Map<string, TopicTally>();
  readonly latenciesMs: number[] = [];
  readonly perSecond = new Map<number, number>();
  duplicates = 0;
  private readonly seen = new Set<string>();
  private consumer?: Consumer;
  private listeners: Array<() => void> = [];

  constructor(
    private readonly kafka: Kafka,
    private readonly topics: string[],
    private readonly options: CollectorOptions = {},
  ) {
    for (const topic of topics) this.tallies.set(topic, { count: 0, firstTs: Infinity, lastTs: 0 });
  }

  async start(): Promise<this> {
    this.consumer = this.kafka.consumer({
      groupId: `bench-collector-${randomUUID()}`,
      maxWaitTimeInMs: 100,
    });
    await this.consumer.connect();
    await this.consumer.subscribe({ topics: this.topics, fromBeginning: true });
    await this.consumer.run({
      partitionsConsumedConcurrently: 6,
      eachBatch: ({ batch }) => {
        const tally = this.tallies.get(batch.topic)!;
        for (const message of batch.messages) {
          const ts = Number(message.timestamp);
          tally.count += 1;
          if (ts < tally.firstTs) tally.firstTs = ts;
          if (ts > tally.lastTs) tally.lastTs = ts;
          if (this.options.perSecond) {
            const second = Math.floor(ts / 1000);
            this.perSecond.set(second, (this.perSecond.get(second) ?? 0) + 1);
          }
          if (this.options.sentAt || this.options.checkDuplicates)
            this.inspect(batch.topic, ts, message.value, message.headers);
        }
        for (const listener of this.listeners) listener();
        return Promise.resolve();
      },
    });
    return this;
  }

  count(topic: string): number {
    return this.tallies.get(topic)?.count ?? 0;
  }

  /** The latest write time over the given topics (0 when none has a result). */
  lastTs(topics: string[] = this.topics): number {
    return Math.max(0, ...topics.map((t) => this.tallies.get(t)?.lastTs ?? 0));
  }

  firstTs(topics: string[] = this.topics): number {
    return Math.min(...topics.map((t) => this.tallies.get(t)?.firstTs ?? Infinity));
  }

  /**
   * Resolves true once `done()` holds (checked as each record arrives), or false after
   * `timeoutMs`, or false as soon as `giveUp` settles: the process under test ended, so no record
   * that could make `done()` hold is coming, and waiting out the timeout would only hide it.
   */
  waitUntil(done: () => boolean, timeoutMs: number, giveUp?: Promise<unknown>): Promise<boolean> {
    if (done()) return Promise.resolve(true);
    return new Promise((resolve) => {
      let finished = false;
      const finish = (value: boolean) => {
        if (finished) return;
        finished = true;
        clearTimeout(timer);
        this.listeners = this.listeners.filter((l) => l !== check);
        resolve(value);
      };
      const check = () => {
        if (done()) finish(true);
      };
      const timer = setTimeout(() => finish(false), timeoutMs);
      this.listeners.push(check);
      // Records it wrote before it ended may still be on their way: one last look.
      const last = () => finish(done());
      giveUp?.then(last, last);
    });
  }

  async stop(): Promise<void> {
    await this.consumer?.disconnect();
  }

  /**
   * Reads the source event id of a CloudEvents result: the `ce_sourceeventid` header in binary
   * mode, the `sourceeventid` attribute of the JSON value in structured mode.
   */
  private inspect(topic: string, ts: number, value: Buffer | null, headers?: IHeaders): void {
    let sourceEventId: unknown = headers?.ce_sourceeventid?.toString();
    if (sourceEventId === undefined) {
      try {
        sourceEventId = (JSON.parse(value?.toString() ?? 'null') as { sourceeventid?: unknown })
          ?.sourceeventid;
      } catch {
        return;
      }
    }
    if (typeof sourceEventId !== 'string') return;
    if (this.options.checkDuplicates) {
      const key = `${topic}\u0000${sourceEventId}`;
      if (this.seen.has(key)) this.duplicates += 1;
      else this.seen.add(key);
    }
    const sent = this.options.sentAt?.get(sourceEventId);
    if (sent !== undefined) this.latenciesMs.push(ts - sent);
  }
}
