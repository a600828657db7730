import { Logger } from '@nestjs/common';
import type { ConsumerConfig, EachBatchPayload, Kafka } from 'kafkajs';
import type { ConsumedRecord } from '../kafka/consumed-record';
import { MetricsService } from '../metrics/metrics.service';
import { ConsumerStatus } from './consumer-status';
import { KafkaBatchServer, type KafkaBatchServerOptions } from './kafka-batch.server';
import type { PartitionOffset } from './offset-committer';
import { INBOUND_RECORDS } from './inbound-pattern';

const TOPIC = 'orders';
const EVENTS = {
  GROUP_JOIN: 'consumer.group_join',
  REBALANCING: 'consumer.rebalancing',
  CRASH: 'consumer.crash',
  COMMIT_OFFSETS: 'consumer.commit_offsets',
  HEARTBEAT: 'consumer.heartbeat',
};

type Listener = (event: { payload: unknown }) => void;
type TopicPartitions = { topic: string; partitions?: number[] };

/** `''` for whole topics, `' 0'` for partition 0: how the log tells the two kinds of pause apart. */
const partitionsOf = (what: TopicPartitions[]): string =>
  what
    .flatMap((t) => t.partitions ?? [])
    .map((p) => ` ${p}`)
    .join('');

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
  pause = (what: TopicPartitions[]) => void this.log.push(`pause${partitionsOf(what)}`);
  resume = (what: TopicPartitions[]) => void this.log.push(`resume${partitionsOf(what)}`);
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

/** A vendor gate the spec opens and closes. */
class FakeGate {
  private readonly listeners: Array<(state: { open: boolean }) => void> = [];
  onChange(listener: (state: { open: boolean }) => void): void {
    this.listeners.push(listener);
  }
  set(open: boolean): void {
    for (const listener of this.listeners) listener({ open });
  }
}

/** One record in the handler's hands, finished or failed by the spec. */
interface HeldRecord {
  record: ConsumedRecord;
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
    maxInFlightBytes: 1_000_000,
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
  const configs: ConsumerConfig[] = [];
  const kafka = {
    consumer: (config: ConsumerConfig) => {
      configs.push(config);
      return consumer;
    },
  } as unknown as Kafka;
  const status = new ConsumerStatus();
  const server = new KafkaBatchServer(kafka, options(overrides), status);
  const held = new Map<string, HeldRecord>();
  /** The offsets of each handler call. */
  const calls: string[][] = [];
  let nextCallFails: Error | undefined;
  server.addHandler(
    INBOUND_RECORDS,
    (records: ConsumedRecord[]) => {
      calls.push(records.map((r) => r.offset));
      const failure = nextCallFails;
      nextCallFails = undefined;
      // As Nest's exception filter answers a handler that threw.
      if (failure) return Promise.reject(failure);
      return Promise.resolve(
        records.map(
          (record) =>
            new Promise<void>((finish, fail) => {
              held.set(record.offset, { record, finish, fail });
            }),
        ),
      );
    },
    true,
  );
  const failNextCall = (error: Error) => (nextCallFails = error);
  await new Promise<void>((resolve, reject) =>
    server.listen((error) =>
      error ? reject(new Error('listen failed', { cause: error })) : resolve(),
    ),
  );
  consumer.emit(EVENTS.GROUP_JOIN, { memberAssignment: { [TOPIC]: [0] } });

  /**
   * Hands the consumer a batch of partition 0, as kafkajs' fetch loop would; the partition's end
   * (`highWatermark`) is just past the batch unless given.
   */
  function fetch(
    offsets: number[],
    { running = true, bytes = 0, highWatermark = Math.max(-1, ...offsets) + 1 } = {},
  ): BatchRun {
    const resolved: string[] = [];
    const run = { running };
    const payload = {
      batch: {
        topic: TOPIC,
        partition: 0,
        highWatermark: String(highWatermark),
        messages: offsets.map((offset) => ({
          offset: String(offset),
          timestamp: '0',
          key: null,
          value: bytes > 0 ? Buffer.alloc(bytes) : Buffer.from(`record ${offset}`),
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

  return { consumer, configs, server, status, held, calls, failNextCall, fetch, at, rebalance };
}

/** Stops the server while finishing every record it holds, so the stop does not wait them out. */
async function closeFinishing(server: KafkaBatchServer, held: Map<string, HeldRecord>) {
  const closing = server.close();
  for (const record of held.values()) record.finish();
  await closing;
}

const committed = (...offsets: number[]): PartitionOffset[][] =>
  offsets.map((offset) => [{ topic: TOPIC, partition: 0, offset: String(offset) }]);

describe(KafkaBatchServer.name, () => {
  beforeAll(() => {
    Logger.overrideLogger(false);
  });

  describe('metrics', () => {
    /** One family's samples from a scrape, as `{labels…} value` strings. */
    async function samples(metrics: MetricsService, name: string): Promise<string[]> {
      const family = await metrics.registry.getSingleMetric(name)!.get();
      return family.values
        .filter((v) => !('metricName' in v) || v.metricName === name)
        .map((v) => `${JSON.stringify(v.labels)} ${v.value}`);
    }

    it('reports each partition lag: its high watermark minus the next offset to commit', async () => {
      const metrics = new MetricsService();
      const { server, held, fetch, at } = await start({ metrics });
      expect(await samples(metrics, 'mailbridge_consumer_lag_records')).toEqual([]);

      await fetch([0, 1, 2, 3], { highWatermark: 10 }).done; // 6 more wait on the broker
      expect(await samples(metrics, 'mailbridge_consumer_lag_records')).toEqual([
        '{"topic":"orders","partition":"0"} 10',
      ]);

      at(0).finish();
      at(2).finish(); // 1 still holds the partition back
      await flush();
      expect(await samples(metrics, 'mailbridge_consumer_lag_records')).toEqual([
        '{"topic":"orders","partition":"0"} 9',
      ]);

      at(1).finish();
      at(3).finish();
      await fetch([4, 5, 6, 7, 8, 9], { highWatermark: 10 }).done;
      for (const offset of [4, 5, 6, 7, 8, 9]) at(offset).finish();
      await flush();
      expect(await samples(metrics, 'mailbridge_consumer_lag_records')).toEqual([
        '{"topic":"orders","partition":"0"} 0',
      ]);
      await closeFinishing(server, held);
    });

    it('removes the lag of a partition given away', async () => {
      const metrics = new MetricsService();
      const { consumer, server, held, fetch } = await start({ metrics });
      await fetch([0, 1], { highWatermark: 5 }).done;
      expect(await samples(metrics, 'mailbridge_consumer_lag_records')).toHaveLength(1);

      consumer.emit(EVENTS.GROUP_JOIN, { memberAssignment: { [TOPIC]: [1] } });

      expect(await samples(metrics, 'mailbridge_consumer_lag_records')).toEqual([]);
      await closeFinishing(server, held);
    });

    it('reports the in-flight window, its limits and the records per fetched batch', async () => {
      const metrics = new MetricsService();
      const { server, held, fetch, at } = await start({
        metrics,
        maxInFlight: 50,
        maxInFlightBytes: 4096,
      });
      await fetch([0, 1, 2], { bytes: 100 }).done;

      expect(await samples(metrics, 'mailbridge_consumer_in_flight_records')).toEqual(['{} 3']);
      expect(await samples(metrics, 'mailbridge_consumer_in_flight_bytes')).toEqual(['{} 300']);
      expect(await samples(metrics, 'mailbridge_consumer_in_flight_limit_records')).toEqual([
        '{} 50',
      ]);
      expect(await samples(metrics, 'mailbridge_consumer_in_flight_limit_bytes')).toEqual([
        '{} 4096',
      ]);
      at(0).finish();
      await flush();
      expect(await samples(metrics, 'mailbridge_consumer_in_flight_records')).toEqual(['{} 2']);
      expect(await samples(metrics, 'mailbridge_consumer_in_flight_bytes')).toEqual(['{} 200']);

      const batches = await metrics.registry
        .getSingleMetric('mailbridge_consumer_batch_records')!
        .get();
      const sum = (name: string) =>
        (batches.values as Array<{ metricName?: string; value: number }>).find(
          (v) => v.metricName === name,
        )?.value;
      expect(sum('mailbridge_consumer_batch_records_count')).toBe(1);
      expect(sum('mailbridge_consumer_batch_records_sum')).toBe(3);
      await closeFinishing(server, held);
    });
  });

  it('fetches 128 KiB per partition and 1 MiB in all, not kafkajs’ 1 MiB and 10 MiB', async () => {
    const { configs, server } = await start();
    expect(configs).toEqual([
      expect.objectContaining({ maxBytesPerPartition: 131_072, maxBytes: 1_048_576 }),
    ]);
    await server.close();
  });

  it('is ready while the group hears from it, and not once a session timeout passed without', async () => {
    const { consumer, status } = await start({ sessionTimeoutMs: 10_000 });
    expect(status.ready).toBe(true);
    const now = Date.now();
    jest.spyOn(Date, 'now').mockReturnValue(now + 10_000);
    try {
      expect(status.ready).toBe(false);
      expect(status.reason).toMatch(/not heard from this member for 10 s/);
      consumer.emit(EVENTS.HEARTBEAT, {});
      expect(status.ready).toBe(true);
    } finally {
      jest.restoreAllMocks();
    }
  });

  it('hands a batch over and returns before its records finish, so fetching goes on', async () => {
    const { consumer, server, held, fetch } = await start();
    const batch = fetch([0, 1, 2]);
    await batch.done;
    expect([...held.keys()]).toEqual(['0', '1', '2']);
    expect(batch.resolved).toEqual(['2']);
    expect(consumer.commits).toEqual([]); // nothing has an outcome yet
    await closeFinishing(server, held);
  });

  it('hands the records admitted together to one handler call; a failed call rewinds to its first', async () => {
    const { consumer, server, calls, failNextCall, fetch, at, rebalance } = await start();
    await fetch([0, 1, 2]).done;
    expect(calls).toEqual([['0', '1', '2']]);
    for (const offset of [0, 1, 2]) at(offset).finish();

    failNextCall(new Error('the handler threw'));
    await fetch([3, 4]).done;
    await flush();
    expect(calls).toEqual([
      ['0', '1', '2'],
      ['3', '4'],
    ]);
    expect(consumer.log).toEqual(['pause 0', 'seek 0@3']);
    await rebalance();
    expect(consumer.commits).toEqual(committed(3));
    await server.close();
  });

  it('commits a partition only up to its first record without an outcome', async () => {
    const { consumer, server, fetch, at, rebalance } = await start();
    await fetch([0, 1, 2, 3]).done;
    at(0).finish();
    at(2).finish();
    await rebalance();
    expect(consumer.commits).toEqual(committed(1)); // 2 is done, but 1 is not

    at(3).finish();
    await rebalance();
    expect(consumer.commits).toEqual(committed(1));

    at(1).finish();
    await rebalance();
    expect(consumer.commits).toEqual(committed(1, 4));
    await server.close();
  });

  it('commits past records of later batches only once the earlier ones finish', async () => {
    const { consumer, server, fetch, at, rebalance } = await start();
    await fetch([0, 1]).done;
    // 0 still waits (for its campaign batch, or the vendor)
    at(1).finish();
    await fetch([2, 3]).done;
    at(2).finish();
    at(3).finish();
    await rebalance();
    expect(consumer.commits).toEqual([]); // 0 holds the whole partition back

    at(0).finish();
    await rebalance();
    expect(consumer.commits).toEqual(committed(4));
    await server.close();
  });

  it('makes a batch that meets a full window wait for room, admitting the rest once it drained', async () => {
    const { consumer, server, held, fetch, at } = await start({ maxInFlight: 8 });
    const batch = fetch([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    await flush();
    expect([...held.keys()]).toEqual(['0', '1', '2', '3', '4', '5', '6', '7']);
    expect(batch.resolved).toEqual(['7']); // fetching cannot go on: the batch has not returned

    at(0).finish();
    await flush();
    expect(held.has('8')).toBe(false); // 7 of 8 in flight: above the resume mark, 6
    at(1).finish();
    await batch.done;
    expect([...held.keys()]).toContain('9');
    expect(batch.resolved).toEqual(['7', '9']);
    expect(consumer.log.filter((line) => line.startsWith('pause'))).toEqual([]); // no refetch
    await closeFinishing(server, held);
  });

  it('says how many records wait to be taken in: past the last admitted, up to the high watermark', async () => {
    const { status, server, held, fetch, at } = await start({ maxInFlight: 4 });
    expect(status.waiting()).toBe(0); // nothing fetched yet: nothing known to wait

    const batch = fetch([0, 1, 2, 3, 4, 5], { highWatermark: 20 });
    await flush();
    expect(status.waiting()).toBe(16); // 4 admitted; 2 of the batch wait for room, 14 on the broker

    for (const offset of [0, 1, 2, 3]) at(offset).finish();
    await batch.done;
    expect(status.waiting()).toBe(14); // finishing records does not change what waits
    await fetch([6, 7], { highWatermark: 8 }).done;
    expect(status.waiting()).toBe(0);
    await closeFinishing(server, held);
  });

  it('bounds the window in bytes too, and lets one record larger than the bound through alone', async () => {
    const { server, held, fetch, at } = await start({ maxInFlightBytes: 20 });
    const batch = fetch([0, 1, 2]); // 8 bytes each ("record 0")
    await flush();
    expect(batch.resolved).toEqual(['1']);
    at(0).finish();
    at(1).finish();
    await batch.done;
    expect(batch.resolved).toEqual(['1', '2']);

    at(2).finish();
    await flush();
    const large = fetch([3], { bytes: 500 });
    await large.done;
    expect(large.resolved).toEqual(['3']);
    await closeFinishing(server, held);
  });

  it('ends the wait for room when the stop begins, leaving the rest of the batch unresolved', async () => {
    const { server, held, fetch, at } = await start({ maxInFlight: 1 });
    const batch = fetch([0, 1]);
    await flush();
    const closing = server.close();
    await batch.done;
    expect(batch.resolved).toEqual(['0']);
    at(0).finish();
    await closing;
    expect(held.has('1')).toBe(false);
  });

  it('rewinds the partition to a record that fails, commits nothing after it, and fetches it again after a pause', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] });
    try {
      const { consumer, server, fetch, at, rebalance } = await start();
      await fetch([0, 1, 2, 3]).done;
      at(0).finish();
      await flush();
      at(1).fail(new Error('result topic unavailable'));
      await flush();
      expect(consumer.log).toEqual(['pause 0', 'seek 0@1']);
      at(2).finish(); // stragglers of the rewound partition
      at(3).finish();
      await rebalance();
      expect(consumer.commits).toEqual(committed(1));

      jest.advanceTimersByTime(1_000);
      expect(consumer.log).toEqual(['pause 0', 'seek 0@1', 'commit 0@1', 'resume 0']);
      const refetched = fetch([1, 2, 3]); // from the record that failed
      await refetched.done;
      for (const offset of [1, 2, 3]) at(offset).finish();
      await rebalance();
      expect(consumer.commits).toEqual(committed(1, 4));
      await server.close();
    } finally {
      jest.useRealTimers();
    }
  });

  it('rewinds to the first record still running, not to a later one that failed first', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] });
    try {
      const { consumer, server, fetch, at, rebalance } = await start();
      await fetch([0, 1, 2, 3]).done;
      at(0).finish();
      await flush();
      // Record 1 waits on the vendor while record 3 fails (Redis lost mid-failover): fetching
      // again from 3 would let the new fetch commit past 1, and 1 failing after would be skipped.
      at(3).fail(new Error('Connection is closed.'));
      await flush();
      expect(consumer.log).toEqual(['pause 0', 'seek 0@1']);
      at(2).finish();
      at(1).fail(new Error('Connection is closed.')); // the straggler fails too: already fetched again
      await flush();
      expect(consumer.log).toEqual(['pause 0', 'seek 0@1']);

      jest.advanceTimersByTime(1_000);
      const refetched = fetch([1, 2, 3]);
      await refetched.done;
      for (const offset of [2, 3]) at(offset).finish();
      await rebalance();
      expect(consumer.commits).toEqual(committed(1)); // nothing past record 1 until it is done
      at(1).finish();
      await rebalance();
      expect(consumer.commits).toEqual(committed(1, 4));
      await server.close();
    } finally {
      jest.useRealTimers();
    }
  });

  it('starts nothing of a batch that kafkajs stopped before it was handed over', async () => {
    const { consumer, server, held, fetch } = await start();
    const batch = fetch([0, 1], { running: false }); // the group is rebalancing
    await batch.done;
    expect(held.size).toBe(0);
    expect(batch.resolved).toEqual([]);
    expect(consumer.commits).toEqual([]);
    await server.close();
  });

  it('keeps a rewound partition paused when the vendor gate reopens', async () => {
    const gate = new FakeGate();
    const { consumer, server, held, fetch, at } = await start({ gate });
    await fetch([0]).done;
    at(0).fail(new Error('result topic unavailable'));
    await flush();
    gate.set(false);
    gate.set(true);
    expect(consumer.log).toEqual(['pause 0', 'seek 0@0', 'pause', 'resume', 'pause 0']);
    await closeFinishing(server, held);
  });

  it('drains in-flight records at stop, commits them, and only then stops the consumer', async () => {
    const { consumer, server, fetch, at } = await start();
    await fetch([0, 1]).done;
    await flush();
    let closed = false;
    const closing = server.close().then(() => (closed = true));
    await flush();
    expect(consumer.log).toEqual(['pause']);

    at(1).finish();
    await flush();
    expect(closed).toBe(false); // record 0 is still waited for
    expect(consumer.log).toEqual(['pause']);

    at(0).finish();
    await closing;
    expect(consumer.log).toEqual(['pause', 'commit 0@2', 'stop', 'disconnect']);
  });

  describe('what a stop leaves to the next owner', () => {
    let warnings: jest.SpyInstance;
    beforeEach(() => (warnings = jest.spyOn(Logger.prototype, 'warn')));
    afterEach(() => warnings.mockRestore());
    const said = () => warnings.mock.calls.map(([message]) => String(message));

    it('gives up on records still running when the stop times out, committing what finished', async () => {
      const { consumer, server, fetch, at } = await start({ shutdownTimeoutMs: 50 });
      await fetch([0, 1]).done;
      at(0).finish();
      await server.close();
      expect(consumer.log).toEqual(['pause', 'commit 0@1', 'stop', 'disconnect']);
      expect(said()).toEqual([
        "stop: left uncommitted for the group's next owner: 1 record(s) without an outcome; records still running after 50 ms",
      ]);
    });

    it('stops waiting for records once a dependency is unreachable, commits what finished, and says so in one line', async () => {
      const problems: string[] = [];
      const { consumer, server, fetch, at } = await start({
        shutdownTimeoutMs: 3_600_000, // only the missing dependency can end the wait
        dependencies: { problems: () => [...problems] },
      });
      await fetch([0, 1, 2]).done;
      at(0).finish();
      const closing = server.close();
      await flush();
      expect(consumer.log).toEqual(['pause']); // both dependencies answer: it waits
      problems.push('the idempotency store (Redis) is unreachable: connect ECONNREFUSED');
      await closing;
      expect(consumer.log).toEqual(['pause', 'commit 0@1', 'stop', 'disconnect']);
      expect(said()).toEqual([
        "stop: left uncommitted for the group's next owner: 2 record(s) without an outcome; the idempotency store (Redis) is unreachable: connect ECONNREFUSED",
      ]);
    });

    it('counts a record that fails once the service began to stop as given back: no rewind, no line of its own', async () => {
      const { consumer, server, status, fetch, at } = await start();
      await fetch([0, 1]).done;
      at(0).finish();
      status.markStopping(); // the service's first stop hook, before the transport's close
      at(1).fail(new Error('given up: the service is stopping'));
      await flush();
      await server.close();
      expect(consumer.log).toEqual(['pause', 'commit 0@1', 'stop', 'disconnect']); // no seek
      expect(said()).toEqual([
        "stop: left uncommitted for the group's next owner: 1 record(s) without an outcome",
      ]);
    });

    it('says nothing when it left nothing', async () => {
      const { server, fetch, held } = await start();
      await fetch([0]).done;
      await closeFinishing(server, held);
      expect(said()).toEqual([]);
    });
  });
});
