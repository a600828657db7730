import { numberFlag } from './number-flag';

describe('numberFlag', () => {
  const argv = ['node', 'bench.js', '--rounds', '9', '--seconds', '0', '--orders', 'many'];

  it('reads the number after its flag, or gives the fallback when the flag is absent', () => {
    expect(numberFlag('rounds', 5, argv)).toBe(9);
    expect(numberFlag('reps', 3, argv)).toBe(3);
  });

  it('refuses zero and what is not a number, naming the flag', () => {
    expect(() => numberFlag('seconds', 1, argv)).toThrow('--seconds must be a positive number');
    expect(() => numberFlag('orders', 1, argv)).toThrow('--orders must be a positive number');
  });
});
