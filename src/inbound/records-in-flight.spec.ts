import type { ConsumedRecord } from '../kafka/consumed-record';
import { PartitionProgress } from './partition-progress';
import { RecordsInFlight, type RecordEnds } from './records-in-flight';

function record(offset: number): ConsumedRecord {
  return {
    topic: 'events',
    partition: 0,
    offset: String(offset),
    timestamp: '0',
    key: null,
    value: Buffer.from('0123456789'),
    headers: {},
  };
}

function deferred<T>(): { promise: Promise<T>; resolve(v: T): void; reject(e: unknown): void } {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

function setup() {
  const ended: string[] = [];
  const ends: RecordEnds = {
    finished: (r, _progress, next) => ended.push(`finished ${r.offset} next ${next}`),
    failed: (r, _progress, error) => ended.push(`failed ${r.offset}: ${(error as Error).message}`),
  };
  const records = new RecordsInFlight({ records: 10, bytes: 1_000 }, ends);
  const progress = new PartitionProgress(1);
  const admit = (...offsets: number[]) => {
    const admitted = offsets.map(record);
    for (const r of admitted) expect(records.tryAdmit(r)).toBe(true);
    progress.add(admitted.map((r) => r.offset));
    return admitted;
  };
  return { ended, records, progress, admit };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe(RecordsInFlight.name, () => {
  it('follows each record to its own end, in the order they end, and frees its room', async () => {
    const { ended, records, progress, admit } = setup();
    const first = deferred<string>();
    const second = deferred<string>();
    records.start(() => Promise.resolve([first.promise, second.promise]), admit(0, 1), progress);
    second.resolve('sent');
    await flush();
    expect(ended).toEqual(['finished 1 next undefined']); // 0 still runs: nothing to commit
    expect(records.window.inFlight).toEqual({ records: 1, bytes: 10 });
    first.resolve('sent');
    await flush();
    expect(ended).toEqual(['finished 1 next undefined', 'finished 0 next 2']);
    expect(records.window.inFlight).toEqual({ records: 0, bytes: 0 });
    expect(records.size).toBe(0);
  });

  it('fails only the record whose outcome rejects', async () => {
    const { ended, records, progress, admit } = setup();
    records.start(
      () => Promise.resolve([Promise.resolve('sent'), Promise.reject(new Error('no outcome'))]),
      admit(0, 1),
      progress,
    );
    await flush();
    expect(ended).toEqual(['finished 0 next 1', 'failed 1: no outcome']);
    expect(records.size).toBe(0);
  });

  it('fails every record of a handler call that fails or answers the wrong number', async () => {
    const { ended, records, progress, admit } = setup();
    records.start(() => Promise.reject(new Error('filter')), admit(0, 1), progress);
    records.start(() => Promise.resolve(['sent']), admit(2, 3), progress);
    await flush();
    expect(ended).toEqual([
      'failed 0: filter',
      'failed 1: filter',
      'failed 2: the mailbridge.inbound.records handler must answer one outcome per record',
      'failed 3: the mailbridge.inbound.records handler must answer one outcome per record',
    ]);
    expect(records.window.inFlight).toEqual({ records: 0, bytes: 0 });
  });

  it('drains only once no record runs, counting those started while it waited', async () => {
    const { records, progress, admit } = setup();
    const first = deferred<string>();
    const later = deferred<string>();
    records.start(() => Promise.resolve([first.promise]), admit(0), progress);
    let drained = false;
    const draining = records.drained().then(() => (drained = true));
    records.start(() => Promise.resolve([later.promise]), admit(1), progress);
    first.resolve('sent');
    await flush();
    expect(drained).toBe(false); // offset 1 still runs
    later.resolve('sent');
    await draining;
    expect(drained).toBe(true);
    await expect(records.drained()).resolves.toBeUndefined(); // nothing runs: at once
  });
});
