import { seededRandom } from '../../test/support/seeded-random';
import { planFaults } from './fault-plan';

const counts = { kills: 5, brokerRestarts: 0, redisRestarts: 0, scaleCycles: 2 };

describe('chaos fault plan of a graceful round', () => {
  it('plays each kill of a normal round as a SIGTERM restart, at the same time and delay', () => {
    const normal = planFaults({ ...counts, graceful: false }, 120_000, seededRandom(11));
    const graceful = planFaults({ ...counts, graceful: true }, 120_000, seededRandom(11));
    expect(graceful.map((s) => (s.kind === 'sigterm-restart' ? 'kill' : s.kind))).toEqual(
      normal.map((s) => s.kind),
    );
    const delays = (steps: typeof normal) =>
      steps.flatMap((s) =>
        s.kind === 'kill' || s.kind === 'sigterm-restart' ? [[s.atMs, s.restartAfterMs]] : [],
      );
    expect(delays(graceful)).toEqual(delays(normal));
    expect(delays(graceful)).toHaveLength(5);
  });

  it('keeps the replica changes and the stop under load, and kills nothing', () => {
    const plan = planFaults({ ...counts, graceful: true }, 120_000, seededRandom(11));
    const kinds = plan.map((s) => s.kind);
    expect(kinds).not.toContain('kill');
    expect(kinds.filter((k) => k === 'scale-up')).toHaveLength(2);
    expect(kinds.filter((k) => k === 'scale-down')).toHaveLength(2);
    expect(kinds.filter((k) => k === 'sigterm')).toHaveLength(1);
  });
});

describe('chaos fault plan of a cluster scenario', () => {
  const single = { ...counts, graceful: false };

  it('leaves a single-node run the schedule its seed gave it', () => {
    const without = planFaults(single, 120_000, seededRandom(11));
    const zero = planFaults(
      { ...single, brokerKills: 0, redisFailovers: 0 },
      120_000,
      seededRandom(11),
    );
    expect(zero).toEqual(without);
  });

  it('adds the same instance faults and one broker kill per segment, each back before the next', () => {
    const loadMs = 120_000;
    const plan = planFaults({ ...single, brokerKills: 2 }, loadMs, seededRandom(11));
    const kills = plan.filter((s) => s.kind === 'broker-kill');
    expect(kills).toHaveLength(2);
    const segment = (loadMs * 0.85) / 2;
    kills.forEach((kill, i) => {
      expect(kill.atMs).toBeGreaterThanOrEqual(loadMs * 0.05 + segment * (i + 0.1));
      expect(kill.atMs).toBeLessThanOrEqual(loadMs * 0.05 + segment * (i + 0.4));
      expect(kill.downMs).toBeGreaterThanOrEqual(10_000);
      expect(kill.downMs).toBeLessThanOrEqual(25_000);
    });
    const others = (steps: typeof plan) => steps.filter((s) => s.kind !== 'broker-kill');
    expect(others(plan)).toEqual(planFaults(single, loadMs, seededRandom(11)));
  });

  it('draws Redis failovers with their own time down, and repeats them for a seed', () => {
    const plan = () =>
      planFaults({ ...single, redisFailovers: 3 }, 120_000, seededRandom(5)).filter(
        (s) => s.kind === 'redis-failover',
      );
    expect(plan()).toHaveLength(3);
    expect(plan()).toEqual(plan());
    for (const step of plan()) {
      expect(step.downMs).toBeGreaterThanOrEqual(5_000);
      expect(step.downMs).toBeLessThanOrEqual(15_000);
    }
  });
});
