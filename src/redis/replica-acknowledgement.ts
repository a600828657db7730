import { Logger } from '@nestjs/common';

/** What a write needs before it counts (`REDIS_WAIT_*`, `REDIS_REPLICA_SHORTFALL`). */
export interface ReplicaSettings {
  /** Replicas that must hold a write (Redis' WAIT); 0 asks for none. */
  replicas: number;
  /** How long one WAIT may take before it answers with fewer. */
  timeoutMs: number;
  /** `wait`: ask again until enough replicas have it; `proceed`: go on, logged and counted. */
  onShortfall: 'wait' | 'proceed';
}

export const NO_REPLICAS: ReplicaSettings = { replicas: 0, timeoutMs: 500, onShortfall: 'wait' };

/** Redis' `WAIT numreplicas timeout` on the connection that made the writes. */
export type WaitCommand = (replicas: number, timeoutMs: number) => Promise<number>;

/**
 * Makes a write survive the loss of the primary that acknowledged it: Redis replicates
 * asynchronously, so a `sending` mark or an outcome only the primary had is gone after a
 * failover, and the next owner would send again not knowing it might be a second email.
 * `replicated()` resolves once `replicas` replicas have every write the connection made before
 * the call. While too few answer, it asks again (readiness names the shortfall), or with
 * `proceed` goes on and counts the write as exposed.
 */
export class ReplicaAcknowledgement {
  private readonly logger = new Logger('RedisReplicas');
  /** Why sends wait for replicas now; undefined while they acknowledge. */
  problem?: string;
  /** Writes that went on without their replicas (`proceed`). */
  exposedWrites = 0;
  private inFlight?: Promise<number>;
  private next?: Promise<number>;
  private stopped = false;

  constructor(
    private readonly wait: WaitCommand,
    /** Changes whenever the connection is lost: a WAIT after that speaks for another primary. */
    private readonly connectionEpoch: () => number,
    readonly settings: ReplicaSettings,
  ) {}

  async replicated(): Promise<void> {
    const { replicas, timeoutMs, onShortfall } = this.settings;
    if (replicas === 0) return;
    const epoch = this.connectionEpoch();
    for (;;) {
      if (this.stopped) throw new Error('stopping: the write was not confirmed on Redis replicas');
      const acknowledged = await this.acknowledged();
      if (this.connectionEpoch() !== epoch) {
        // ioredis sends a WAIT again after it reconnects, perhaps to a replica promoted without
        // the writes: its answer confirms nothing about them.
        throw new Error('the Redis connection was lost before replicas acknowledged the write');
      }
      if (acknowledged >= replicas) {
        if (this.problem !== undefined) this.logger.log('Redis replicas acknowledge writes again');
        this.problem = undefined;
        return;
      }
      const shortfall = `${acknowledged} of ${replicas} Redis replicas acknowledged a write within ${timeoutMs} ms`;
      if (onShortfall === 'proceed') {
        this.exposedWrites++;
        this.logger.warn(`${shortfall}; going on (REDIS_REPLICA_SHORTFALL=proceed)`);
        return;
      }
      if (this.problem === undefined) this.logger.error(`${shortfall}; sends wait until they do`);
      this.problem = `${shortfall}; sends wait until they do`;
    }
  }

  /** Ends every wait: a stop must not hang on replicas that do not answer. */
  stop(): void {
    this.stopped = true;
  }

  /**
   * One WAIT on the wire at a time, shared by every caller that arrived before it was sent: a
   * WAIT covers the writes sent before it, and each one holds the connection for up to its
   * timeout when replicas are short, so one per caller would queue the connection's other
   * commands (heartbeats, PINGs) behind many of them.
   */
  private acknowledged(): Promise<number> {
    if (this.inFlight === undefined) {
      const sent = this.wait(this.settings.replicas, this.settings.timeoutMs);
      this.inFlight = sent.finally(() => (this.inFlight = undefined));
      return this.inFlight;
    }
    this.next ??= this.inFlight
      .catch(() => undefined)
      .then(() => {
        this.next = undefined;
        return this.acknowledged();
      });
    return this.next;
  }
}
