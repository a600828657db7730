import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { EventEmitter } from 'node:events';
import { CLOCK, systemClock, type Clock } from './clock';

export type GateState = { open: true } | { open: false; reason: 'auth' | 'outage'; until: number };

/**
 * Closes the way to the vendor when it refuses our keys (401/403) or keeps failing after the
 * client's own retries, so that consumption pauses instead of turning every event into a
 * failure or a dead letter. It reopens by itself after the pause; the next failure closes it
 * again. Waiting actions stay in memory, bounded by the consumer's in-flight limit.
 */
@Injectable()
export class VendorGate {
  private readonly logger = new Logger(VendorGate.name);
  private readonly events = new EventEmitter().setMaxListeners(0);
  private current: GateState = { open: true };
  private cancelReopen?: () => void;
  private shutDown = false;

  constructor(@Optional() @Inject(CLOCK) private readonly clock: Clock = systemClock) {}

  get state(): GateState {
    return this.current;
  }

  /**
   * Closes the gate for `pauseMs` (extending an earlier close, never shortening it). Returns
   * whether this call paused consumption, i.e. the gate was open.
   */
  trip(reason: 'auth' | 'outage', pauseMs: number, detail: string): boolean {
    const until = this.clock.now() + pauseMs;
    if (!this.current.open && this.current.until >= until) return false;
    const wasOpen = this.current.open;
    this.current = { open: false, reason, until };
    this.cancelReopen?.();
    this.cancelReopen = this.clock.after(pauseMs, () => this.reopen());
    if (wasOpen) {
      const what =
        reason === 'auth'
          ? 'vendor refused the credentials; check VENDOR_* keys'
          : 'vendor keeps failing';
      this.logger.error(`${what} (${detail}); pausing consumption for ${pauseMs} ms`);
      this.events.emit('change', this.current);
    }
    return wasOpen;
  }

  /** Resolves when the gate is open; rejects once the service shuts down. */
  async waitOpen(): Promise<void> {
    for (;;) {
      if (this.shutDown) throw new Error('the service is shutting down');
      if (this.current.open) return;
      await new Promise<void>((resolve) => this.events.once('change', () => resolve()));
    }
  }

  onChange(listener: (state: GateState) => void): void {
    this.events.on('change', listener);
  }

  /** Ends every wait: actions still paused give their claims back and stay uncommitted. */
  close(): void {
    this.cancelReopen?.();
    this.shutDown = true;
    this.events.emit('change', this.current);
  }

  private reopen(): void {
    this.current = { open: true };
    this.logger.log('resuming: trying the vendor again');
    this.events.emit('change', this.current);
  }
}
