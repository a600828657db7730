import { sleep } from '../../bench/infra/bench-kafka';
import type { ChaosBroker } from '../infra/chaos-broker';
import type { BrokerKillOutcome, ChaosCluster, RedisFailoverOutcome } from '../infra/chaos-cluster';
import type { ChaosRedis } from '../infra/chaos-redis';
import type { InstancePool } from '../service/instance-pool';
import type { FaultStep } from './fault-plan';

export interface FaultLog {
  timeline: Array<{ atMs: number; what: string }>;
  kills: number;
  /** Kills that found no running instance to kill. */
  killsSkipped: number;
  /** A graceful round's kills: SIGTERM, then a restart after the delay a kill would have had. */
  sigtermRestarts: number;
  /** SIGTERM restarts that found no running instance to stop. */
  sigtermRestartsSkipped: number;
  sigterms: number;
  scaleUps: number;
  scaleDowns: number;
  brokerRestarts: Array<{ atMs: number; tookMs: number; error?: string }>;
  redisRestarts: Array<{
    atMs: number;
    downMs: number;
    keysBefore: number;
    keysAfter: number;
    error?: string;
  }>;
  /** A `--cluster` run's broker kills; a failed one has an error and no outcome. */
  brokerKills: Array<{ atMs: number; downMs: number; error?: string } & Partial<BrokerKillOutcome>>;
  /** A `--cluster` run's kills of the Redis primary. */
  redisFailovers: Array<
    { atMs: number; downMs: number; error?: string } & Partial<RedisFailoverOutcome>
  >;
}

/**
 * What the faults act on: the single-node mode's broker and Redis, or a `--cluster` run's
 * cluster with the broker to kill (asked when the kill is due: the group's coordinator moves).
 */
export type FaultTargets =
  | { kind: 'single'; broker: ChaosBroker; redis: ChaosRedis }
  | {
      kind: 'cluster';
      cluster: ChaosCluster;
      victim: () => Promise<number>;
      /** Which Redis a failover kills a primary of: the Sentinels' or the Redis Cluster's. */
      redis: 'sentinel' | 'cluster';
    };

/** The third replica, which comes and goes; the others are always wanted. */
export const EXTRA_SLOT = 'c';
/** An instance younger than this is only killed when no older one runs: a kill should hit work. */
const PREFERRED_MIN_AGE_MS = 3_000;
/** Longest a kill or SIGTERM restart waits for a running instance; restarts come within 5 s. */
const KILL_WAIT_MS = 15_000;

/**
 * Plays a fault plan against the live system on the wall clock. Long faults (a broker or Redis
 * restart, a graceful stop) run in the background so the next fault still lands on time; `run`
 * returns once the plan is played and every fault has ended.
 */
export class FaultRunner {
  private readonly log: FaultLog = {
    timeline: [],
    kills: 0,
    killsSkipped: 0,
    sigtermRestarts: 0,
    sigtermRestartsSkipped: 0,
    sigterms: 0,
    scaleUps: 0,
    scaleDowns: 0,
    brokerRestarts: [],
    redisRestarts: [],
    brokerKills: [],
    redisFailovers: [],
  };
  private readonly pending = new Set<Promise<unknown>>();
  private startedAt = 0;

  constructor(
    private readonly pool: InstancePool,
    private readonly targets: FaultTargets,
    private readonly say: (message: string) => void,
  ) {}

  async run(steps: FaultStep[], startedAt: number): Promise<FaultLog> {
    this.startedAt = startedAt;
    for (const step of steps) {
      const wait = startedAt + step.atMs - Date.now();
      if (wait > 0) await sleep(wait);
      await this.play(step);
    }
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
    return this.log;
  }

  private async play(step: FaultStep): Promise<void> {
    switch (step.kind) {
      case 'kill': {
        const target = await this.pickWhenRunning(step.pick);
        if (!target) {
          this.log.killsSkipped++;
          return this.note('kill -9 skipped: no instance running');
        }
        this.log.kills++;
        this.note(`kill -9 ${target}, restart in ${step.restartAfterMs} ms`);
        return this.pool.kill(target, step.restartAfterMs);
      }
      case 'sigterm-restart': {
        const target = await this.pickWhenRunning(step.pick);
        if (!target) {
          this.log.sigtermRestartsSkipped++;
          return this.note('SIGTERM restart skipped: no instance running');
        }
        this.log.sigtermRestarts++;
        this.note(`SIGTERM ${target}, restart ${step.restartAfterMs} ms after it exits`);
        // In the background, as a stop may take up to SHUTDOWN_TIMEOUT_MS: the next fault is due.
        return this.background(this.pool.terminate(target, 'SIGTERM restart', step.restartAfterMs));
      }
      case 'sigterm': {
        // The longest-running instance: the one most certainly holding partitions and work.
        const target = this.pool.live()[0];
        if (!target) return this.note('SIGTERM skipped: no instance running');
        this.log.sigterms++;
        this.note(`SIGTERM ${target} under load`);
        return this.background(
          this.pool.terminate(target, 'SIGTERM under load', step.restartAfterMs),
        );
      }
      case 'scale-up':
        this.log.scaleUps++;
        this.note(`third replica ${EXTRA_SLOT} joins`);
        return this.pool.ensureUp(EXTRA_SLOT);
      case 'scale-down':
        this.log.scaleDowns++;
        this.note(`third replica ${EXTRA_SLOT} leaves (SIGTERM)`);
        if (!this.pool.live().includes(EXTRA_SLOT)) return this.pool.retire(EXTRA_SLOT);
        return this.background(this.pool.terminate(EXTRA_SLOT, 'scale-down under load'));
      case 'broker-restart':
        return this.restartBroker();
      case 'redis-restart':
        return this.restartRedis(step.downMs);
      case 'broker-kill':
        return this.killBroker(step.downMs);
      case 'redis-failover':
        return this.failOverRedis(step.downMs);
    }
  }

  private restartBroker(): void {
    const atMs = this.now();
    if (this.targets.kind !== 'single')
      return this.note('broker restart skipped: no single broker');
    this.note('broker restart (data kept)');
    this.background(
      this.targets.broker.restart().then(
        (tookMs) => {
          this.log.brokerRestarts.push({ atMs, tookMs });
          this.note(`broker back after ${tookMs} ms`);
        },
        (error: Error) => this.log.brokerRestarts.push({ atMs, tookMs: -1, error: error.message }),
      ),
    );
  }

  private restartRedis(downMs: number): void {
    const atMs = this.now();
    if (this.targets.kind !== 'single') return this.note('Redis restart skipped: no single Redis');
    this.note(`Redis kill -9, down for ${downMs} ms`);
    this.background(
      this.targets.redis.restart(downMs).then(
        (keys) => {
          this.log.redisRestarts.push({ atMs, downMs, ...keys });
          this.note(`Redis back with ${keys.keysAfter} keys (${keys.keysBefore} before)`);
        },
        (error: Error) =>
          this.log.redisRestarts.push({
            atMs,
            downMs,
            keysBefore: -1,
            keysAfter: -1,
            error: error.message,
          }),
      ),
    );
  }

  private async killBroker(downMs: number): Promise<void> {
    const atMs = this.now();
    const { targets } = this;
    if (targets.kind !== 'cluster') return this.note('broker kill skipped: no cluster');
    const record = { atMs, downMs };
    const node = await targets.victim().catch((error: Error) => error);
    if (node instanceof Error) {
      this.log.brokerKills.push({ ...record, error: `no coordinator found: ${node.message}` });
      return this.note(`broker kill skipped: ${node.message}`);
    }
    this.note(`kill -9 of broker ${node} (coordinator of the group), revived in ${downMs} ms`);
    this.background(
      targets.cluster.killBroker(node, downMs).then(
        (outcome) => {
          this.log.brokerKills.push({ ...record, ...outcome });
          this.note(`broker ${node} back on its data after ${outcome.reviveMs} ms of starting`);
        },
        (error: Error) => this.log.brokerKills.push({ ...record, node, error: error.message }),
      ),
    );
  }

  private failOverRedis(downMs: number): void {
    const atMs = this.now();
    const { targets } = this;
    if (targets.kind !== 'cluster') return this.note('Redis failover skipped: no Sentinels');
    this.note(
      `kill -9 of the Redis ${targets.redis === 'cluster' ? 'Cluster primary holding the most keys' : 'primary'}; ` +
        `the old node returns as a replica in ${downMs} ms`,
    );
    const failover =
      targets.redis === 'cluster'
        ? targets.cluster.failOverRedisCluster(downMs)
        : targets.cluster.failOverRedis(downMs);
    this.background(
      failover.then(
        (outcome) => {
          this.log.redisFailovers.push({ atMs, downMs, ...outcome });
          this.note(
            `Redis ${outcome.killedPort} replaced by ${outcome.promotedPort} after ${outcome.failoverMs} ms ` +
              `(${outcome.keysBefore} keys before, ${outcome.keysAfter} after); ${outcome.killedPort} is a replica`,
          );
        },
        (error: Error) => this.log.redisFailovers.push({ atMs, downMs, error: error.message }),
      ),
    );
  }

  /** Every instance may be down at once (killed, restarting): a kill waits for one to come back. */
  private async pickWhenRunning(draw: number): Promise<string | undefined> {
    const deadline = Date.now() + KILL_WAIT_MS;
    for (;;) {
      const target = this.pick(draw);
      if (target || Date.now() > deadline) return target;
      await sleep(200);
    }
  }

  private pick(draw: number): string | undefined {
    const settled = this.pool.live(PREFERRED_MIN_AGE_MS);
    const candidates = settled.length > 0 ? settled : this.pool.live();
    return candidates[Math.floor(draw * candidates.length)];
  }

  private background(work: Promise<unknown>): void {
    const tracked = work.catch((error: Error) => this.note(`fault failed: ${error.message}`));
    this.pending.add(tracked);
    void tracked.finally(() => this.pending.delete(tracked));
  }

  private note(what: string): void {
    this.log.timeline.push({ atMs: this.now(), what });
    this.say(what);
  }

  private now(): number {
    return Date.now() - this.startedAt;
  }
}
