import { DependencyStatus } from './dependency-status';

describe(DependencyStatus.name, () => {
  function setUp() {
    const causes: Record<string, string | undefined> = {};
    const status = new DependencyStatus([
      { name: 'the broker', problem: () => causes.broker },
      { name: 'Redis', problem: () => causes.redis },
    ]);
    const changes: boolean[] = [];
    status.onChange((available) => changes.push(available));
    return { causes, status, changes };
  }

  it('names every unreachable dependency with its cause', () => {
    const { causes, status } = setUp();
    expect(status.problems()).toEqual([]);
    causes.broker = 'connect ECONNREFUSED';
    causes.redis = 'no answer to PING for 3000 ms';
    expect(status.problems()).toEqual([
      'the broker is unreachable: connect ECONNREFUSED',
      'Redis is unreachable: no answer to PING for 3000 ms',
    ]);
    expect(status.available).toBe(false);
  });

  it('tells listeners when the first dependency goes and when the last comes back', () => {
    const { causes, status, changes } = setUp();
    status.sample();
    causes.redis = 'down';
    status.sample();
    causes.broker = 'down';
    status.sample();
    causes.redis = undefined;
    status.sample();
    expect(changes).toEqual([false]);
    causes.broker = undefined;
    status.sample();
    expect(changes).toEqual([false, true]);
  });
});
