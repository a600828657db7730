import { ReplicaAcknowledgement, type ReplicaSettings } from './replica-acknowledgement';

/** A WAIT whose answers the test gives, one per call, in order. */
function fakeWait(answers: number[]) {
  const calls: Array<[number, number]> = [];
  const wait = (replicas: number, timeoutMs: number) => {
    calls.push([replicas, timeoutMs]);
    const answer = answers.shift();
    return answer === undefined
      ? Promise.reject(new Error('no more answers'))
      : Promise.resolve(answer);
  };
  return { wait, calls };
}

const settings = (over: Partial<ReplicaSettings> = {}): ReplicaSettings => ({
  replicas: 1,
  timeoutMs: 200,
  onShortfall: 'wait',
  ...over,
});

describe(ReplicaAcknowledgement.name, () => {
  it('asks nothing when no replica is asked for', async () => {
    const { wait, calls } = fakeWait([]);
    await new ReplicaAcknowledgement(wait, () => 0, settings({ replicas: 0 })).replicated();
    expect(calls).toEqual([]);
  });

  it('resolves once enough replicas acknowledge, asking WAIT with the setting’s bound', async () => {
    const { wait, calls } = fakeWait([2]);
    const acks = new ReplicaAcknowledgement(wait, () => 0, settings({ replicas: 2 }));
    await acks.replicated();
    expect(calls).toEqual([[2, 200]]);
    expect(acks.problem).toBeUndefined();
  });

  it('waits while too few acknowledge, naming the shortfall, until they do', async () => {
    const { wait, calls } = fakeWait([0, 0, 1]);
    const acks = new ReplicaAcknowledgement(wait, () => 0, settings());
    const problems: Array<string | undefined> = [];
    const done = acks.replicated().then(() => problems.push(acks.problem));
    await done;
    expect(calls).toHaveLength(3);
    expect(problems).toEqual([undefined]);
  });

  it('reports the shortfall while it lasts', async () => {
    let release!: (n: number) => void;
    const answers = [Promise.resolve(0), new Promise<number>((r) => (release = r))];
    const acks = new ReplicaAcknowledgement(
      () => answers.shift()!,
      () => 0,
      settings(),
    );
    const done = acks.replicated();
    await new Promise((r) => setImmediate(r));
    expect(acks.problem).toBe(
      '0 of 1 Redis replicas acknowledged a write within 200 ms; sends wait until they do',
    );
    release(1);
    await done;
    expect(acks.problem).toBeUndefined();
  });

  it('goes on after one short answer with proceed, counting the write as exposed', async () => {
    const { wait, calls } = fakeWait([0]);
    const acks = new ReplicaAcknowledgement(wait, () => 0, settings({ onShortfall: 'proceed' }));
    await acks.replicated();
    expect(calls).toHaveLength(1);
    expect(acks.exposedWrites).toBe(1);
    expect(acks.problem).toBeUndefined();
  });

  it('refuses an answer given after the connection was lost: it may speak for another primary', async () => {
    let epoch = 0;
    const acks = new ReplicaAcknowledgement(
      () => {
        epoch++; // the connection closed and the WAIT was sent again after reconnecting
        return Promise.resolve(1);
      },
      () => epoch,
      settings(),
    );
    await expect(acks.replicated()).rejects.toThrow(
      'the Redis connection was lost before replicas acknowledged the write',
    );
  });

  it('sends one WAIT at a time: callers that come while one is out share the next', async () => {
    const pending: Array<(n: number) => void> = [];
    let sent = 0;
    const acks = new ReplicaAcknowledgement(
      () => {
        sent++;
        return new Promise<number>((r) => pending.push(r));
      },
      () => 0,
      settings(),
    );
    const first = acks.replicated();
    const second = acks.replicated();
    const third = acks.replicated();
    await new Promise((r) => setImmediate(r));
    expect(sent).toBe(1);
    pending.shift()!(1);
    await first;
    await new Promise((r) => setImmediate(r));
    expect(sent).toBe(2); // the second and third were asked after the first WAIT went out
    pending.shift()!(1);
    await Promise.all([second, third]);
    expect(sent).toBe(2);
  });

  it('ends every wait at a stop', async () => {
    const { wait } = fakeWait([0, 0, 0, 0]);
    const acks = new ReplicaAcknowledgement(wait, () => 0, settings());
    const waiting = acks.replicated();
    acks.stop();
    await expect(waiting).rejects.toThrow(
      'stopping: the write was not confirmed on Redis replicas',
    );
  });
});
