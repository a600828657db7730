import { bodyCost } from './body-cost';

// `npm run bench:body` in miniature: it times the same bytes both ways, and says how many.
describe('bodyCost', () => {
  it('builds the same body both ways and times each', async () => {
    const cost = await bodyCost(50, 1, 0.02);
    // 50 welcome recipients with their attributes, and the template's content around them.
    expect(cost.bytes).toBeGreaterThan(50 * 100);
    for (const us of [cost.before, cost.after]) {
      expect(Number.isFinite(us)).toBe(true);
      expect(us).toBeGreaterThan(0);
    }
  });
});
