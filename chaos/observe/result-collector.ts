import { randomUUID } from 'node:crypto';
import type { Consumer, IHeaders, Kafka } from 'kafkajs';

/** One result record as the harness keeps it. */
export interface ResultRecord {
  topic: string;
  /** Broker time (the result topics use LogAppendTime). */
  ts: number;
  type: string;
  /** What the result says happened, to tell a repeat from a conflicting result. */
  outcome: string;
  /** `data.ambiguous === true` on a success, or `AMBIGUOUS_SEND` on a failure. */
  ambiguous: boolean;
  errorCode?: string;
}

/** A result's attributes and data, from either CloudEvents content mode. */
interface ResultShape {
  sourceeventid?: unknown;
  type?: unknown;
  id?: unknown;
  data?: {
    template?: unknown;
    ambiguous?: unknown;
    errorCode?: unknown;
    requestIds?: unknown;
    requestId?: unknown;
    listId?: unknown;
  };
}

/** Key of an (event, template) pair; dead letters, which carry no template, use `*`. */
export function actionKey(eventId: string, template: string): string {
  return `${eventId}\u0000${template}`;
}

/**
 * Reads every result topic from the beginning for the whole run. Records are kept once per
 * (topic, partition, offset): the collector's own consumer may read a range twice after a
 * broker restart, and that must not show up as a repeated result.
 */
export class ResultCollector {
  readonly byAction = new Map<string, ResultRecord[]>();
  /** Highest offset read per `topic:partition`. */
  readonly positions = new Map<string, number>();
  unreadable = 0;
  /** Times the collector's own consumer died and was replaced. */
  restarts = 0;
  private readonly seen = new Set<string>();
  private readonly groupId = `chaos-collector-${randomUUID()}`;
  private consumer?: Consumer;
  private stopped = false;

  constructor(
    private readonly kafka: Kafka,
    private readonly topics: { deadLetter: string; results: string[] },
  ) {}

  async start(): Promise<this> {
    const consumer = this.kafka.consumer({ groupId: this.groupId, maxWaitTimeInMs: 200 });
    this.consumer = consumer;
    // A broker restart can crash kafkajs's consumer for good (restart: false); the collector
    // must outlive every fault it watches, so it starts a new one in the same group, which
    // resumes from the group's commits (positions already read are skipped).
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      if (payload.restart || this.stopped) return;
      this.restarts++;
      setTimeout(() => void this.replace(consumer), 1_000);
    });
    await consumer.connect();
    try {
      await consumer.subscribe({
        topics: [...this.topics.results, this.topics.deadLetter],
        fromBeginning: true,
      });
    } catch (error) {
      // Left connected, it would hold a member of the group open until the run's end.
      await consumer.disconnect().catch(() => undefined);
      throw error;
    }
    await consumer.run({
      partitionsConsumedConcurrently: 4,
      eachBatch: ({ batch }) => {
        for (const message of batch.messages) {
          const position = `${batch.topic}:${batch.partition}`;
          const id = `${position}:${message.offset}`;
          if (this.seen.has(id)) continue;
          this.seen.add(id);
          this.positions.set(
            position,
            Math.max(this.positions.get(position) ?? -1, Number(message.offset)),
          );
          this.add(batch.topic, Number(message.timestamp), message.value, message.headers);
        }
        return Promise.resolve();
      },
    });
    return this;
  }

  get records(): number {
    return this.seen.size;
  }

  /** True once every partition has been read up to the given end offsets (exclusive). */
  caughtUp(ends: Map<string, number>): boolean {
    for (const [position, end] of ends) {
      if (end > 0 && (this.positions.get(position) ?? -1) < end - 1) return false;
    }
    return true;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.consumer?.disconnect().catch(() => undefined);
  }

  private async replace(dead: Consumer): Promise<void> {
    if (this.stopped || this.consumer !== dead) return;
    await dead.disconnect().catch(() => undefined);
    await this.start().catch(() => {
      // The broker is still away: try again, as often as it takes.
      if (!this.stopped) setTimeout(() => void this.replace(this.consumer ?? dead), 1_000);
    });
  }

  private add(topic: string, ts: number, value: Buffer | null, headers?: IHeaders): void {
    let result: ResultShape;
    try {
      const json = JSON.parse(value?.toString('utf8') ?? 'null') as unknown;
      result =
        topic !== this.topics.deadLetter && headers?.ce_specversion !== undefined
          ? binaryResult(headers, json)
          : (json as ResultShape);
    } catch {
      this.unreadable++;
      return;
    }
    if (topic === this.topics.deadLetter) {
      // The original event, kept as it was: its id is the key, and no template handled it.
      const id = typeof result?.id === 'string' ? result.id : undefined;
      if (id === undefined) this.unreadable++;
      else
        this.push(actionKey(id, '*'), {
          topic,
          ts,
          type: 'dead-letter',
          outcome: 'dead-letter',
          ambiguous: false,
        });
      return;
    }
    const data = result?.data;
    if (typeof result?.sourceeventid !== 'string' || typeof data?.template !== 'string') {
      this.unreadable++;
      return;
    }
    const type = typeof result.type === 'string' ? result.type : topic;
    const errorCode = typeof data.errorCode === 'string' ? data.errorCode : undefined;
    this.push(actionKey(result.sourceeventid, data.template), {
      topic,
      ts,
      type,
      outcome: `${type}:${JSON.stringify(data.requestIds ?? data.requestId ?? data.listId ?? errorCode ?? '')}`,
      ambiguous: data.ambiguous === true || errorCode === 'AMBIGUOUS_SEND',
      errorCode,
    });
  }

  private push(key: string, record: ResultRecord): void {
    const list = this.byAction.get(key);
    if (list) list.push(record);
    else this.byAction.set(key, [record]);
  }
}

/** A binary-mode result: its attributes in `ce_` headers, its data the value. */
function binaryResult(headers: IHeaders, data: unknown): ResultShape {
  const header = (name: string) => headers[name]?.toString();
  return {
    id: header('ce_id'),
    type: header('ce_type'),
    sourceeventid: header('ce_sourceeventid'),
    data: data as ResultShape['data'],
  };
}
