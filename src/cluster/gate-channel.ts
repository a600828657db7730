/** Why the vendor gate is closed: keys refused (401/403), or failures that outlived the retries. */
export type GateCause = 'auth' | 'outage';

/**
 * A close of the vendor gate as the replicas share it. `remainingMs` rather than a moment:
 * replicas' clocks differ, the time left does not, so each closes until its own now plus it.
 */
export interface SharedClose {
  reason: GateCause;
  remainingMs: number;
  /** What the vendor said (`status 401`, `HTTP 503`): never a key. */
  detail: string;
  /** The instance that closed it (`InstanceLiveness.id`). */
  origin: string;
}

/**
 * How one replica's vendor gate tells the others of a close and hears of theirs. On Redis
 * (`RedisGateChannel`) every replica of the deployment shares one close; on the in-memory store
 * (one process) there is nobody to tell (`LocalGateChannel`).
 */
export interface GateChannel {
  /** This instance's name in the closes it announces, so that it can tell its own from a peer's. */
  readonly self: string;
  /**
   * Closes the shared gate for `pauseMs` from now, unless it is closed for longer already
   * (extend-only), and tells every replica. Resolves with the close as it stands afterwards,
   * which may be longer than asked; undefined when there is nobody to tell or Redis is away.
   */
  announce(reason: GateCause, pauseMs: number, detail: string): Promise<SharedClose | undefined>;
  /**
   * Calls `listener` with every close a replica announces, and with the close standing when
   * this replica (re)subscribes: a close announced while it was away is not missed.
   */
  listen(listener: (close: SharedClose) => void): void;
  /** Ends the subscription (at shutdown). */
  stop(): Promise<void>;
}

export const GATE_CHANNEL = Symbol('GATE_CHANNEL');

/** One process: the gate stays its own. */
export class LocalGateChannel implements GateChannel {
  readonly self = 'local';

  announce(): Promise<undefined> {
    return Promise.resolve(undefined);
  }

  listen(): void {}

  stop(): Promise<void> {
    return Promise.resolve();
  }
}
