import type { GateState } from '../dispatch/vendor.gate';
import type { ConsumerStatus } from '../inbound/consumer-status';

/** The part of `VendorGate` liveness reads. */
export interface GateView {
  readonly state: GateState;
  onChange(listener: (state: GateState) => void): void;
}

/**
 * Decides whether a restart would help, which is what `/health/live` tells the orchestrator. It
 * would when the consumer crashed and kafkajs will not restart it, or when fetched records have
 * made no progress for `stallMs` while the vendor gate was open. A closed gate is a wait the
 * service chose (the vendor refused or kept failing), and a restart would only wait again, so the
 * stall clock counts only from the moment the gate last opened.
 */
export class LivenessCheck {
  private gateOpenedAt = 0;

  constructor(
    private readonly consumer: ConsumerStatus,
    private readonly gate: GateView,
    private readonly stallMs: number,
    private readonly now: () => number = Date.now,
  ) {
    gate.onChange((state) => {
      if (state.open) this.gateOpenedAt = this.now();
    });
  }

  /** Why the process should be restarted; undefined while it is alive and useful. */
  problem(): string | undefined {
    const failure = this.consumer.failure;
    if (failure !== undefined) return `the consumer stopped and will not restart (${failure})`;
    const since = this.consumer.stalledSince;
    if (since === undefined || !this.gate.state.open) return undefined;
    const stalledMs = this.now() - Math.max(since, this.gateOpenedAt);
    if (stalledMs < this.stallMs) return undefined;
    return `no record finished for ${Math.round(stalledMs / 1000)} s while records wait and the vendor gate is open`;
  }
}
