import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { EventEmitter } from 'node:events';
import {
  GATE_CHANNEL,
  LocalGateChannel,
  type GateCause,
  type GateChannel,
  type SharedClose,
} from '../cluster/gate-channel';
import { CLOCK, systemClock, type Clock } from './clock';

/** Who closed the gate: this replica, on its own vendor answer, or a peer that told it. */
export type GateOrigin = 'self' | 'peer';

/** Closed for the vendor's trouble (`GateCause`), or for good because the service is stopping. */
export type GateState =
  | { open: true }
  | { open: false; reason: GateCause | 'stopping'; until: number; origin: GateOrigin };

/**
 * Closes the way to the vendor when it refuses our keys (401/403) or keeps failing after the
 * client's own retries, so that consumption pauses instead of turning every event into a
 * failure or a dead letter. It reopens by itself after the pause; the next failure closes it
 * again. Waiting actions stay in memory, bounded by the consumer's in-flight limit.
 *
 * The close is shared (`GateChannel`): a replica that closes tells the others, and one that hears
 * of a close adopts it until the same moment, so that every replica pauses and reopens together
 * and only the first to be refused knocks with the bad key.
 */
@Injectable()
export class VendorGate {
  private readonly logger = new Logger(VendorGate.name);
  private readonly events = new EventEmitter().setMaxListeners(0);
  private current: GateState = { open: true };
  private cancelReopen?: () => void;
  private shutDown = false;

  constructor(
    @Optional() @Inject(CLOCK) private readonly clock: Clock = systemClock,
    @Optional()
    @Inject(GATE_CHANNEL)
    private readonly channel: GateChannel = new LocalGateChannel(),
  ) {
    channel.listen((close) => this.adopt(close));
  }

  get state(): GateState {
    return this.current;
  }

  /**
   * Closes the gate for `pauseMs` (extending an earlier close, never shortening it) and tells
   * the other replicas. Returns whether this call paused consumption, i.e. the gate was open.
   */
  trip(reason: GateCause, pauseMs: number, detail: string): boolean {
    if (this.shutDown) return false;
    const change = this.closeFor(reason, pauseMs, 'self');
    if (change === 'unchanged') return false;
    if (change === 'closed') {
      const what =
        reason === 'auth'
          ? 'vendor refused the credentials; check VENDOR_* keys'
          : 'vendor keeps failing';
      this.logger.error(`${what} (${detail}); pausing consumption for ${pauseMs} ms`);
    }
    // A peer's close may stand longer than this one: then this replica waits for it too (the
    // channel would have told it of that close; the answer may come first).
    void this.channel.announce(reason, pauseMs, detail).then((standing) => {
      if (!standing || this.shutDown || this.current.open) return;
      this.closeFor(standing.reason, standing.remainingMs, this.current.origin);
    });
    return change === 'closed';
  }

  /** Resolves when the gate is open; rejects once the service shuts down. */
  /** Whether {@link waitOpen} would return at once: open, and not shutting down. */
  get passable(): boolean {
    return this.current.open && !this.shutDown;
  }

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

  /** Called each time the gate goes from open to closed, with the cause and who closed it. */
  onClose(listener: (reason: GateCause, origin: GateOrigin) => void): void {
    this.events.on('closed', listener);
  }

  /**
   * Closes for good (the service is stopping): every wait ends, so actions still paused give
   * their claims back and stay uncommitted, and consumption pauses (it listens for the change).
   */
  close(): void {
    if (this.shutDown) return;
    this.cancelReopen?.();
    this.shutDown = true;
    this.current = { open: false, reason: 'stopping', until: Infinity, origin: 'self' };
    this.events.emit('change', this.current);
  }

  /** A peer's close, heard on the channel (or read at (re)subscription): held until it ends. */
  private adopt(close: SharedClose): void {
    if (this.shutDown) return;
    if (this.closeFor(close.reason, close.remainingMs, 'peer') !== 'closed') return;
    const what =
      close.reason === 'auth'
        ? 'a peer replica reports the vendor refused the credentials'
        : 'a peer replica reports the vendor keeps failing';
    this.logger.warn(
      `${what} (${close.detail}); pausing consumption for ${Math.round(close.remainingMs)} ms`,
    );
  }

  /** Moves the reopening to `pauseMs` from now unless it is later already. */
  private closeFor(
    reason: GateCause,
    pauseMs: number,
    origin: GateOrigin,
  ): 'closed' | 'extended' | 'unchanged' {
    const until = this.clock.now() + pauseMs;
    if (!this.current.open && this.current.until >= until) return 'unchanged';
    const wasOpen = this.current.open;
    this.current = {
      open: false,
      reason,
      until,
      origin: this.current.open ? origin : this.current.origin,
    };
    this.cancelReopen?.();
    this.cancelReopen = this.clock.after(pauseMs, () => this.reopen());
    if (!wasOpen) return 'extended';
    this.events.emit('closed', reason, origin);
    this.events.emit('change', this.current);
    return 'closed';
  }

  private reopen(): void {
    this.current = { open: true };
    this.logger.log('resuming: trying the vendor again');
    this.events.emit('change', this.current);
  }
}
