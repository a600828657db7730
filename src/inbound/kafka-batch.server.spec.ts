import { Logger } from '@nestjs/common';
import type { EachBatchPayload, Kafka } from 'kafkajs';
import type { ConsumedRecord } from '../kafka/consumed-record';
import { ConsumerStatus } from './consumer-status';
import { KafkaBatchServer, type KafkaBatchServerOptions } from './kafka-batch.server';
import type { PartitionOffset } from './offset-committer';
import { INBOUND_EVENT, type RecordContext } from './record-context';

const TOPIC = 'orders';
const EVENTS = {
  GROUP_JOIN: 'consumer.group_join',
  REBALANCING: 'consumer.rebalancing',
  CRASH: 'consumer.crash',
  COMMIT_OFFSETS: 'consumer.commit_offsets',
};

type Listener = (event: { payload: unknown }) => void;

/**
 * A kafkajs consumer without a broker: `run` keeps the `eachBatch` callback for the spec to call,
 * commits are acknowledged at once (COMMIT_OFFSETS, as kafkajs emits after the broker's answer),
 * and every call that matters is logged in order.
 */
class FakeConsumer {
  readonly events = EVENTS;
  readonly log: string[] = [];
  readonly commits: PartitionOffset[][] = [];
  eachBatch?: (payload: EachBatchPayload) => Promise<void>;
  private readonly listeners = new Map<string, Listener[]>();

  on(event: string, listener: Listener): () => void {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
    return () => undefined;
  }

  emit(event: string, payload: unknown): void {
    for (const listener of this.listeners.get(event) ?? []) listener({ payload });
  }

  connect = () => Promise.resolve();
  subscribe = () => Promise.resolve();
  run = (config: { eachBatch: (payload: EachBatchPayload) => Promise<void> }) => {
    this.eachBatch = config.eachBatch;
    return Promise.resolve();
  };
  pause = () => void this.log.push('pause');
  resume = () => void this.log.push('resume');
  seek = ({ partition, offset }: { partition: number; offset: string }) =>
    void this.log.push(`seek ${partition}@${offset}`);
  stop = () => {
    this.log.push('stop');
    return Promise.resolve();
  };
  disconnect = () => {
    this.log.push('disconnect');
    return Promise.resolve();
  };

  commitOffsets = (offsets: PartitionOffset[]) => {
    this.commits.push(offsets);
    this.log.push(`commit ${offsets.map((o) => `${o.partition}@${o.offset}`).join(',')}`);
    const partitions = offsets.map(({ partition, offset }) => ({ partition, offset }));
    this.emit(EVENTS.COMMIT_OFFSETS, { topics: [{ topic: TOPIC, partitions }] });
    return Promise.resolve();
  };
}

/** One record in the handler's hands, finished, failed or parked by the spec. */
interface HeldRecord {
  record: ConsumedRecord;
  context: RecordContext;
  finish(): void;
  fail(error: Error): void;
}

/** What the spec sees of one `eachBatch` call. */
interface BatchRun {
  done: Promise<void>;
  resolved: string[];
  /** What `isRunning()` answers: false once kafkajs stops the batch (a rebalance). */
  running: boolean;
}

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

function options(overrides: Partial<KafkaBatchServerOptions> = {}): KafkaBatchServerOptions {
  return {
    groupId: 'mailbridge-spec',
    topics: [TOPIC],
    maxInFlight: 100,
    commitIntervalMs: 3_600_000, // never during a spec: commits come from the moments under test
    shutdownTimeoutMs: 5_000,
    startFrom: 'earliest',
    sessionTimeoutMs: 30_000,
    partitionsConcurrently: 4,
    allowAutoTopicCreation: false,
    ...overrides,
  };
}

async function start(overrides: Partial<KafkaBatchServerOptions> = {}) {
  const consumer = new FakeConsumer();
  const kafka = { consumer: () => consumer } as unknown as Kafka;
  const server = new KafkaBatchServer(kafka, options(overrides), new ConsumerStatus());
  const held = new Map<string, HeldRecord>();
  server.addHandler(
    INBOUND_EVENT,
    (record: ConsumedRecord, context: RecordContext) =>
      new Promise<void>((finish, fail) => {
        held.set(record.offset, { record, context, finish, fail });
      }),
    true,
  );
  await new Promise<void>((resolve, reject) =>
    server.listen((error) =>
      error ? reject(new Error('listen failed', { cause: error })) : resolve(),
    ),
  );
  consumer.emit(EVENTS.GROUP_JOIN, { memberAssignment: { [TOPIC]: [0] } });

  /** Hands the consumer a batch of partition 0, as kafkajs' fetch loop would. */
  function fetch(offsets: number[]): BatchRun {
    const resolved: string[] = [];
    const run = { running: true };
    const payload = {
      batch: {
        topic: TOPIC,
        partition: 0,
        messages: offsets.map((offset) => ({
          offset: String(offset),
          timestamp: '0',
          key: null,
          value: Buffer.from(`record ${offset}`),
          headers: {},
          attributes: 0,
        })),
      },
      resolveOffset: (offset: string) => void resolved.push(offset),
      heartbeat: () => Promise.resolve(),
      isRunning: () => run.running,
      isStale: () => false,
    } as unknown as EachBatchPayload;
    const done = consumer.eachBatch!(payload);
    done.catch(() => undefined); // asserted by the spec where it matters
    return Object.assign(run, { done, resolved });
  }

  /** The record at `offset`, once the transport handed it to the handler. */
  function at(offset: number): HeldRecord {
    const record = held.get(String(offset));
    if (!record) throw new Error(`record ${offset} was not handed to the handler`);
    return record;
  }

  /** A rebalance starting: the transport commits what is finished, so the spec can see it. */
  async function rebalance(): Promise<void> {
    await flush();
    consumer.emit(EVENTS.REBALANCING, {});
    await flush();
  }

  return { consumer, server, held, fetch, at, rebalance };
}

const committed = (...offsets: number[]): PartitionOffset[][] =>
  offsets.map((offset) => [{ topic: TOPIC, partition: 0, offset: String(offset) }]);

describe(KafkaBatchServer.name, () => {
  beforeAll(() => {
    Logger.overrideLogger(false);
  });

  it('commits a partition only up to its first record without an outcome', async () => {
    const { consumer, server, fetch, at, rebalance } = await start();
    const batch = fetch([0, 1, 2, 3]);
    await flush();
    at(0).finish();
    at(2).finish();
    await rebalance();
    expect(consumer.commits).toEqual(committed(1)); // 2 is done, but 1 is not

    at(3).finish();
    await rebalance();
    expect(consumer.commits).toEqual(committed(1));

    at(1).finish();
    await batch.done;
    expect(batch.resolved).toEqual(['3']);
    expect(consumer.commits).toEqual(committed(1, 4)); // right after the batch
    await server.close();
  });

  it('lets a parked record release its batch, and commits past it only once it finishes', async () => {
    const { consumer, server, fetch, at, rebalance } = await start();
    const first = fetch([0, 1]);
    await flush();
    at(0).context.park(); // waits on its contact-list window
    at(1).finish();
    await first.done;
    expect(first.resolved).toEqual(['1']); // fetching goes on past the parked record

    const second = fetch([2, 3]);
    await flush();
    at(2).finish();
    at(3).finish();
    await second.done;
    await rebalance();
    expect(consumer.commits).toEqual([]); // 0 holds the whole partition back

    at(0).finish();
    await rebalance();
    expect(consumer.commits).toEqual(committed(4));
    await server.close();
  });

  it('seeks the partition back to a parked record that fails, and commits nothing after it', async () => {
    const { consumer, server, fetch, at, rebalance } = await start();
    const batch = fetch([0, 1, 2]);
    await flush();
    at(0).context.park();
    at(1).context.park();
    at(2).finish();
    await batch.done;

    at(0).fail(new Error('contact list creation refused'));
    await flush();
    expect(consumer.log).toContain('seek 0@0');
    at(1).finish(); // a straggler of the rewound partition
    await rebalance();
    expect(consumer.commits).toEqual([]);

    const refetched = fetch([0, 1, 2]); // from the record that failed, as a restart would
    await flush();
    for (const offset of [0, 1, 2]) at(offset).finish();
    await refetched.done;
    expect(consumer.commits).toEqual(committed(3));
    await server.close();
  });

  it('commits what finished and throws when a record fails inside its batch, starting nothing more', async () => {
    const { consumer, server, held, fetch, at } = await start({ maxInFlight: 2 });
    const batch = fetch([0, 1, 2, 3]);
    await flush();
    expect([...held.keys()]).toEqual(['0', '1']); // two in flight at most
    at(0).finish();
    await flush();
    at(1).fail(new Error('dead-letter topic unavailable'));
    await flush();
    at(2).finish();

    await expect(batch.done).rejects.toThrow('dead-letter topic unavailable');
    expect(consumer.commits).toEqual(committed(1));
    expect(held.has('3')).toBe(false); // redelivered after the restart instead
    expect(batch.resolved).toEqual([]);
    await server.close();
  });

  it('starts nothing more and fetches nothing past a batch that kafkajs stopped', async () => {
    const { consumer, server, held, fetch, at } = await start({ maxInFlight: 1 });
    const batch = fetch([0, 1]);
    await flush();
    batch.running = false; // the group is rebalancing: record 1 goes to the next owner
    at(0).finish();
    await batch.done;
    expect(held.has('1')).toBe(false);
    expect(batch.resolved).toEqual([]);
    expect(consumer.commits).toEqual(committed(1));
    await server.close();
  });

  it('drains in-flight and parked records at stop, commits them, and only then stops the consumer', async () => {
    const beforeStop = jest.fn(() => Promise.resolve());
    const { consumer, server, fetch, at } = await start({ beforeStop });
    const batch = fetch([0, 1]);
    await flush();
    at(0).context.park();
    await flush();
    let closed = false;
    const closing = server.close().then(() => (closed = true));
    await flush();
    expect(consumer.log).toEqual(['pause']);
    expect(beforeStop).toHaveBeenCalled();

    at(1).finish();
    await batch.done;
    await flush();
    expect(closed).toBe(false); // the parked record is still waited for
    expect(consumer.log).toEqual(['pause']);

    at(0).finish();
    await closing;
    expect(consumer.log).toEqual(['pause', 'commit 0@2', 'stop', 'disconnect']);
  });

  it('gives up on records still running when the stop times out, committing what finished', async () => {
    const { consumer, server, fetch, at } = await start({ shutdownTimeoutMs: 50 });
    const batch = fetch([0, 1]);
    await flush();
    at(0).finish();
    await server.close();
    await batch.done; // abandoned: the batch returns without record 1
    expect(consumer.log).toEqual(['pause', 'commit 0@1', 'stop', 'disconnect']);
    expect(batch.resolved).toEqual([]);
  });

  // A known gap, marked failing until the transport closes it: the stop waits for the records
  // parked when it began, so one that parks during the drain is left behind and the consumer
  // stops under it (safe: it stays uncommitted; but the stop said it would wait for it).
  it('waits at stop for a record that parks while the stop drains', async () => {
    const { consumer, server, fetch, at } = await start();
    const batch = fetch([0, 1]);
    await flush();
    const closing = server.close();
    await flush();
    at(0).context.park(); // reached its contact-list window after the stop began
    at(1).finish();
    await batch.done;
    await flush();
    expect(consumer.log).toEqual(['pause']);

    at(0).finish();
    await closing;
    expect(consumer.log).toEqual(['pause', 'commit 0@2', 'stop', 'disconnect']);
  });
});
