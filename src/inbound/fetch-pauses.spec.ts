import { FetchPauses, type PausableConsumer } from './fetch-pauses';

type Call = Parameters<PausableConsumer['pause']>[0];

function setUp() {
  const log: string[] = [];
  const describe = (what: Call) =>
    what.map((t) => (t.partitions ? `${t.topic}/${t.partitions.join(',')}` : t.topic)).join(' ');
  const consumer: PausableConsumer = {
    pause: (what) => void log.push(`pause ${describe(what)}`),
    resume: (what) => void log.push(`resume ${describe(what)}`),
  };
  const pauses = new FetchPauses(consumer, ['a', 'b'], { debug: () => undefined });
  return { log, pauses };
}

describe(FetchPauses.name, () => {
  it('pauses a held partition and resumes it on release, once', () => {
    const { log, pauses } = setUp();
    pauses.hold('a', 0);
    pauses.hold('a', 0);
    pauses.release('a', 0);
    pauses.release('a', 0);
    expect(log).toEqual(['pause a/0', 'resume a/0']);
  });

  it('neither pauses nor resumes single partitions while the gate holds the topics', () => {
    const { log, pauses } = setUp();
    pauses.gate(false);
    pauses.hold('a', 0); // pausing a partition of a paused topic would unpause the rest
    pauses.release('a', 0);
    expect(log).toEqual(['pause a b']);
  });

  it('pauses held partitions again when the gate reopens', () => {
    const { log, pauses } = setUp();
    pauses.hold('b', 2);
    pauses.gate(false);
    pauses.gate(true);
    expect(log).toEqual(['pause b/2', 'pause a b', 'resume a b', 'pause b/2']);
  });

  it('resumes nothing once the stop began', () => {
    const { log, pauses } = setUp();
    pauses.hold('a', 1);
    pauses.stop();
    pauses.release('a', 1);
    pauses.gate(false);
    pauses.gate(true);
    expect(log).toEqual(['pause a/1', 'pause a b']);
  });

  it('ignores a gate that reports the state it already had', () => {
    const { log, pauses } = setUp();
    pauses.gate(true);
    expect(log).toEqual([]);
  });
});
