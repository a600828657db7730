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
