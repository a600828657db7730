import { Coalescer } from './coalescer';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe(Coalescer.name, () => {
  it('runs the calls of one turn of the event loop as one, answering each its own', async () => {
    const run = jest.fn((inputs: number[]) => Promise.resolve(inputs.map((n) => n * 10)));
    const coalescer = new Coalescer(run, 100);
    const answers = Promise.all([1, 2, 3].map((n) => coalescer.call(n)));
    await expect(answers).resolves.toEqual([10, 20, 30]);
    expect(run).toHaveBeenCalledTimes(1);
    expect(run).toHaveBeenCalledWith([1, 2, 3]);
  });

  it('gathers calls made from promise callbacks of the same turn too', async () => {
    const run = jest.fn((inputs: number[]) => Promise.resolve(inputs));
    const coalescer = new Coalescer(run, 100);
    const later = Promise.resolve().then(() => coalescer.call(2));
    await Promise.all([coalescer.call(1), later]);
    expect(run).toHaveBeenCalledWith([1, 2]);
  });

  it('splits at the largest batch and starts a new one on the next turn', async () => {
    const run = jest.fn((inputs: number[]) => Promise.resolve(inputs));
    const coalescer = new Coalescer(run, 2);
    await Promise.all([1, 2, 3].map((n) => coalescer.call(n)));
    await nextTurn();
    await coalescer.call(4);
    expect(run.mock.calls).toEqual([[[1, 2]], [[3]], [[4]]]);
  });

  it('gives every caller of a failed run its error', async () => {
    const coalescer = new Coalescer<number, number>(() => Promise.reject(new Error('down')), 10);
    const results = await Promise.allSettled([coalescer.call(1), coalescer.call(2)]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
  });
});
