import calculateSlot from 'cluster-key-slot';
import { perSlot } from './slots';

describe(perSlot.name, () => {
  const sharded = { sharded: true };

  /** A run that answers each key with `reply <key>` and keeps the groups it was given. */
  function recorded() {
    const calls: string[][] = [];
    const run = (group: string[]) => {
      calls.push(group);
      return Promise.resolve(group.map((key) => `reply ${key}`));
    };
    return { calls, run };
  }

  it('runs the batch as one call on one Redis, which holds every slot', async () => {
    const { calls, run } = recorded();
    const keys = ['{a}:1', '{b}:1', 'plain'];
    const replies = await perSlot(keys, (key) => key, run, { sharded: false });
    expect(calls).toEqual([keys]);
    expect(replies).toEqual(keys.map((key) => `reply ${key}`));
  });

  it('calls once per hash slot on a sharded Redis, and answers every item in the order given', async () => {
    const { calls, run } = recorded();
    const keys = ['{a}:1', '{b}:1', '{a}:2', 'plain', '{b}:2'];
    const replies = await perSlot(keys, (key) => key, run, sharded);
    expect(replies).toEqual(keys.map((key) => `reply ${key}`));
    expect(calls).toEqual([['{a}:1', '{a}:2'], ['{b}:1', '{b}:2'], ['plain']]);
    for (const group of calls) expect(new Set(group.map(calculateSlot)).size).toBe(1);
  });

  it('issues every slot’s call before any answers, so that they can share one round trip', async () => {
    let issued = 0;
    let open = () => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    const done = perSlot(
      ['{a}', '{b}', '{c}'],
      (key) => key,
      async (group) => {
        issued += 1;
        await gate;
        return group;
      },
      sharded,
    );
    expect(issued).toBe(3);
    open();
    expect(await done).toEqual(['{a}', '{b}', '{c}']);
  });

  it('fails the whole batch when one slot’s call fails', async () => {
    const failing = perSlot(
      ['{a}', '{b}'],
      (key) => key,
      (group) => (group[0] === '{b}' ? Promise.reject(new Error('down')) : Promise.resolve(group)),
      sharded,
    );
    await expect(failing).rejects.toThrow('down');
  });
});
