import type { Logger } from '@nestjs/common';
import type { Clock } from '../delivery/clock';
import type { HeldClaim, IdempotencyStore } from '../idempotency/idempotency.store';

/**
 * Keeps claims alive however long the vendor makes their actions wait: every third of the claim
 * TTL, one timer renews every claim being sent (thousands are, at once, under load), rather than
 * a timer of each. A claim is renewed at most a third of the TTL after it joins.
 */
export class ClaimRenewal {
  private readonly held = new Set<HeldClaim>();
  private stopTimer?: () => void;

  constructor(
    private readonly store: Pick<IdempotencyStore, 'renew'>,
    private readonly ttlMs: number,
    private readonly clock: Clock,
    private readonly logger: Pick<Logger, 'warn'>,
  ) {}

  /** Renews the claim from now until `letGo`. */
  hold(claim: HeldClaim): void {
    this.held.add(claim);
    this.stopTimer ??= this.clock.every(this.ttlMs / 3, () => this.renewAll());
  }

  /** Stops renewing the claim; the timer stops with the last claim held. */
  letGo(claim: HeldClaim): void {
    this.held.delete(claim);
    if (this.held.size > 0) return;
    this.stopTimer?.();
    this.stopTimer = undefined;
  }

  private renewAll(): void {
    for (const { key, holder } of this.held) {
      this.store.renew(key, holder, this.ttlMs).then(
        (held) => held || this.logger.warn(`claim on ${key} was taken over while running`),
        (e: Error) => this.logger.warn(`claim renewal: ${e.message}`),
      );
    }
  }
}
