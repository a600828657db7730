import type { Clock } from '../../src/delivery/clock';

interface Timer {
  id: number;
  at: number;
  fn: () => void;
  /** Set for `every`: the timer comes back this much later each time it fires. */
  period?: number;
}

/** Lets every promise callback that is ready run: real macrotasks, since no timer here is real. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * A clock that moves only when told to. `advance` fires due timers in time order, letting the
 * promise callbacks they start run before the next one, as real time would.
 */
export class FakeClock implements Clock {
  private time: number;
  private timers: Timer[] = [];
  private ids = 0;

  constructor(start = Date.UTC(2030, 0, 1)) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.after(ms, resolve));
  }

  after(ms: number, fn: () => void): () => void {
    return this.add({ id: ++this.ids, at: this.time + ms, fn });
  }

  every(ms: number, fn: () => void): () => void {
    return this.add({ id: ++this.ids, at: this.time + ms, fn, period: ms });
  }

  /** Timers set and not yet fired or cancelled (an `every` counts until cancelled). */
  get pending(): number {
    return this.timers.length;
  }

  /** How far ahead the furthest timer set is due (0 when none is set). */
  get furthestMs(): number {
    return Math.max(0, ...this.timers.map((t) => t.at - this.time));
  }

  /** Moves time on by `ms`, firing each timer that falls due on the way, then settles. */
  async advance(ms: number): Promise<void> {
    const end = this.time + ms;
    await settle();
    for (;;) {
      const next = this.timers
        .filter((t) => t.at <= end)
        .sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!next) break;
      this.time = next.at;
      if (next.period === undefined) this.timers = this.timers.filter((t) => t !== next);
      else next.at += next.period;
      next.fn();
      await settle();
    }
    this.time = end;
  }

  private add(timer: Timer): () => void {
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
    };
  }
}
