import { alternatingRounds } from './alternating-rounds';

describe('alternatingRounds', () => {
  it('reverses the order of the calls from one round to the next, after a warm-up of each', async () => {
    const seen: string[] = [];
    const call = (name: string) => () => {
      if (seen.at(-1) !== name) seen.push(name);
    };
    await alternatingRounds({ a: call('a'), b: call('b'), c: call('c') }, 3, 0.002);
    // Runs of calls, one per name and round: warm-up a, b, c; then a, b, c / c, b, a / a, b, c,
    // where a round that starts with the name the last one ended with continues its run.
    expect(seen).toEqual(['a', 'b', 'c', 'a', 'b', 'c', 'b', 'a', 'b', 'c']);
  });

  it("gives each call's µs per call, awaiting a promise", async () => {
    let settled = 0;
    const times = await alternatingRounds(
      { sync: () => Math.sqrt(2), async: () => Promise.resolve().then(() => settled++) },
      2,
      0.002,
    );
    expect(Object.keys(times)).toEqual(['sync', 'async']);
    for (const us of Object.values(times)) expect(us).toBeGreaterThan(0);
    expect(settled).toBeGreaterThan(0);
  });
});
