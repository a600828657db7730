import type { GateState } from '../delivery/vendor.gate';
import type { ConsumerStatus } from '../inbound/consumer-status';

/** The part of `VendorGate` liveness reads. */
export interface GateView {
  readonly state: GateState;
  onChange(listener: (state: GateState) => void): void;
}

/** Something the pipeline waits for while it is unavailable: Redis, the broker (see `DependencyStatus`). */
export interface WaitView {
  readonly available: boolean;
  onChange(listener: (available: boolean) => void): void;
}

/**
 * Decides whether a restart would help, which is what `/health/live` tells the orchestrator. It
 * would when the consumer crashed and kafkajs will not restart it, when fetched records have
 * made no progress for `stallMs` while nothing they wait for was away, or when the group dropped
 * this member and it has not joined again for `stallMs` while the broker answers. A closed
 * vendor gate is a wait the service chose (the vendor refused or kept failing), and an
 * unreachable Redis or broker is not cured by a new process either: a restart would only wait
 * again. So both clocks count only while the gate is open and the dependencies answer, from the
 * moment the last of them came back.
 */
export class LivenessCheck {
  private readonly waits: WaitView[] = [];
  private lastReturnAt = 0;

  constructor(
    private readonly consumer: ConsumerStatus,
    gate: GateView,
    private readonly stallMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.alsoWaitFor({
      get available() {
        return gate.state.open;
      },
      onChange: (listener) => gate.onChange((state) => listener(state.open)),
    });
  }

  /** Adds something whose absence stops the stall clock. */
  alsoWaitFor(wait: WaitView): void {
    this.waits.push(wait);
    wait.onChange((available) => {
      if (available) this.lastReturnAt = this.now();
    });
  }

  /** Why the process should be restarted; undefined while it is alive and useful. */
  problem(): string | undefined {
    const failure = this.consumer.failure;
    if (failure !== undefined) return `the consumer stopped and will not restart (${failure})`;
    if (this.waits.some((w) => !w.available)) return undefined;
    const now = this.now();
    const dropped = this.consumer.droppedSince(now);
    if (dropped !== undefined && now - Math.max(dropped, this.lastReturnAt) >= this.stallMs) {
      const out = Math.round((now - dropped) / 1000);
      return `dropped from its consumer group ${out} s ago and not joined again, while Redis and the broker answer`;
    }
    const since = this.consumer.stalledSince;
    if (since === undefined) return undefined;
    const stalledMs = now - Math.max(since, this.lastReturnAt);
    if (stalledMs < this.stallMs) return undefined;
    return `no record finished for ${Math.round(stalledMs / 1000)} s while records wait, the vendor gate is open and Redis and the broker answer`;
  }
}
