import type { ChaosOptions } from '../config/chaos-options';

/** One fault, at `atMs` after the load started; `pick` in [0, 1) chooses among live instances. */
export type FaultStep =
  | { atMs: number; kind: 'kill'; pick: number; restartAfterMs: number }
  /** A graceful round's kill: SIGTERM, and a restart `restartAfterMs` after the process exited. */
  | { atMs: number; kind: 'sigterm-restart'; pick: number; restartAfterMs: number }
  | { atMs: number; kind: 'sigterm'; restartAfterMs: number }
  | { atMs: number; kind: 'scale-up' }
  | { atMs: number; kind: 'scale-down' }
  | { atMs: number; kind: 'broker-restart' }
  | { atMs: number; kind: 'redis-restart'; downMs: number }
  /** kill -9 of the broker leading the run's partitions and group, revived `downMs` later. */
  | { atMs: number; kind: 'broker-kill'; downMs: number }
  /** kill -9 of the Redis primary; the node comes back as a replica `downMs` later. */
  | { atMs: number; kind: 'redis-failover'; downMs: number };

/** How many of each fault a run plays: the options', with the cluster faults of its scenario. */
export type FaultCounts = Pick<
  ChaosOptions,
  'kills' | 'brokerRestarts' | 'redisRestarts' | 'scaleCycles' | 'graceful'
> & { brokerKills?: number; redisFailovers?: number };

/** Faults start once the group had time to settle and end before the input does. */
const WINDOW = { from: 0.05, to: 0.9 };

/**
 * Every fault of a run, drawn up front from the seeded generator, so a seed gives the same
 * schedule on every run. Broker restarts and third-replica cycles are spread over equal
 * segments of the window (never two at once); kills fall anywhere. A graceful round draws the
 * same kills and plays each as a SIGTERM restart instead.
 */
export function planFaults(
  options: FaultCounts,
  loadMs: number,
  random: () => number,
): FaultStep[] {
  const from = loadMs * WINDOW.from;
  const span = loadMs * (WINDOW.to - WINDOW.from);
  const anywhere = () => Math.round(from + span * random());
  const restartDelay = () => Math.round(5_000 * random());
  const steps: FaultStep[] = [];

  const brokerSegment = span / Math.max(1, options.brokerRestarts);
  for (let i = 0; i < options.brokerRestarts; i++) {
    const atMs = Math.round(from + brokerSegment * (i + 0.2 + 0.6 * random()));
    steps.push({ atMs, kind: 'broker-restart' });
  }
  const cycleSegment = span / Math.max(1, options.scaleCycles);
  for (let i = 0; i < options.scaleCycles; i++) {
    const start = from + cycleSegment * i;
    steps.push({
      atMs: Math.round(start + cycleSegment * (0.05 + 0.2 * random())),
      kind: 'scale-up',
    });
    steps.push({
      atMs: Math.round(start + cycleSegment * (0.55 + 0.35 * random())),
      kind: 'scale-down',
    });
  }
  for (let i = 0; i < options.redisRestarts; i++) {
    steps.push({
      atMs: anywhere(),
      kind: 'redis-restart',
      downMs: Math.round(500 + 2_500 * random()),
    });
  }
  // The one graceful stop under load, in the middle of the run when the load is steady.
  steps.push({
    atMs: Math.round(from + span * (0.3 + 0.4 * random())),
    kind: 'sigterm',
    restartAfterMs: restartDelay(),
  });
  const kind = options.graceful ? 'sigterm-restart' : 'kill';
  for (let i = 0; i < options.kills; i++) {
    steps.push({ atMs: anywhere(), kind, pick: random(), restartAfterMs: restartDelay() });
  }
  // Drawn last, so that a single-node run, which has none, keeps the schedule a seed gave it.
  steps.push(
    ...spread(options.brokerKills ?? 0, from, span, random, 'broker-kill', [10_000, 25_000]),
  );
  steps.push(
    ...spread(options.redisFailovers ?? 0, from, span, random, 'redis-failover', [5_000, 15_000]),
  );
  return steps.sort((x, y) => x.atMs - y.atMs);
}

/**
 * `count` faults of one kind, one in each equal segment of the window and early in it, so that
 * the node is back and has caught up before the next one (and before the load ends), with a
 * time down drawn from `[least, most]` ms.
 */
function spread(
  count: number,
  from: number,
  span: number,
  random: () => number,
  kind: 'broker-kill' | 'redis-failover',
  [least, most]: [number, number],
): FaultStep[] {
  const segment = span / Math.max(1, count);
  return Array.from({ length: count }, (_, i) => ({
    atMs: Math.round(from + segment * (i + 0.1 + 0.3 * random())),
    kind,
    downMs: Math.round(least + (most - least) * random()),
  }));
}
