import { PartitionProgress } from './partition-progress';

describe(PartitionProgress.name, () => {
  it('moves the committable offset only past records that, with all before them, are done', () => {
    const progress = new PartitionProgress(1);
    progress.add(['10', '11', '12']);
    expect(progress.complete('11')).toBeUndefined();
    expect(progress.complete('10')).toBe('12');
    expect(progress.complete('12')).toBe('13');
    expect(progress.outstanding).toBe(0);
  });

  it('holds the offset of a record still running while records of later batches finish', () => {
    const progress = new PartitionProgress(1);
    progress.add(['0', '1']);
    expect(progress.complete('1')).toBeUndefined(); // 0 still waits for the vendor
    progress.add(['2', '3']);
    expect(progress.complete('2')).toBeUndefined();
    expect(progress.complete('3')).toBeUndefined();
    expect(progress.outstanding).toBe(4);
    expect(progress.complete('0')).toBe('4');
  });

  it('names the first record not yet done, where a rewind must fetch from', () => {
    const progress = new PartitionProgress(1);
    progress.add(['5', '6', '7']);
    expect(progress.firstUnfinished).toBe('5');
    progress.complete('5');
    progress.complete('7');
    expect(progress.firstUnfinished).toBe('6'); // 7 is done, 6 is not
    progress.complete('6');
    expect(progress.firstUnfinished).toBeUndefined();
  });

  it('counts a refetched offset once', () => {
    const progress = new PartitionProgress(1);
    progress.add(['5', '6']);
    progress.add(['6', '7']); // fetched again after a batch returned early
    expect(progress.outstanding).toBe(3);
    expect(progress.complete('5')).toBe('6');
    expect(progress.complete('6')).toBe('7');
    expect(progress.complete('7')).toBe('8');
  });

  it('skips gaps in offsets (compacted records, transaction markers)', () => {
    const progress = new PartitionProgress(1);
    progress.add(['3', '7', '9']);
    expect(progress.complete('3')).toBe('4');
    expect(progress.complete('9')).toBeUndefined();
    expect(progress.complete('7')).toBe('10');
  });

  it('reports nothing once retired, so stragglers of an old ownership commit nothing', () => {
    const progress = new PartitionProgress(1);
    progress.add(['0']);
    progress.retire();
    expect(progress.complete('0')).toBeUndefined();
  });

  it('stays correct across its compaction of long runs', () => {
    const progress = new PartitionProgress(1);
    const offsets = Array.from({ length: 5000 }, (_, i) => String(i));
    progress.add(offsets);
    let last: string | undefined;
    for (const offset of offsets) last = progress.complete(offset) ?? last;
    expect(last).toBe('5000');
    progress.add(['5000']);
    expect(progress.complete('5000')).toBe('5001');
  });
});
