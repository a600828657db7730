import { longestStall } from './stall';

describe('the longest stall after a fault', () => {
  it('counts the wait from the fault to the first result after it', () => {
    expect(longestStall([0, 500, 12_000, 12_500], 1_000)).toBe(11_000);
  });

  it('takes the longest gap between results after the fault, not before it', () => {
    expect(longestStall([0, 30_000, 31_000, 45_000, 45_500], 30_500)).toBe(14_000);
  });

  it('lets a gap that began inside the window run past it', () => {
    expect(longestStall([1_000, 50_000, 130_000], 0, 60_000)).toBe(80_000);
  });

  it('ignores gaps that begin after the window', () => {
    expect(longestStall([1_000, 2_000, 70_000, 200_000], 0, 60_000)).toBe(68_000);
  });

  it('has nothing to say when no result came after the fault', () => {
    expect(longestStall([1_000, 2_000], 5_000)).toBeUndefined();
  });
});
