/**
 * Where time-driven code reads the clock: the vendor gate's pause, the action runner's busy wait
 * and claim renewal, the batcher's linger, the windows' naming, the window closer's loop. Specs give a fake one and move time on by hand, so that a 30 s pause or a
 * claim renewed for a minute takes no real time. Delivery holds it because dispatch, the other
 * user, may import delivery (`.dependency-cruiser.cjs`); it is no delivery concept.
 */
export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
  /** Calls `fn` once after `ms`; the returned function cancels it. */
  after(ms: number, fn: () => void): () => void;
  /** Calls `fn` every `ms` until the returned function is called. */
  every(ms: number, fn: () => void): () => void;
}

export const CLOCK = Symbol('CLOCK');

/** The process's own clock and timers. */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  after: (ms, fn) => {
    const timer = setTimeout(fn, ms);
    return () => clearTimeout(timer);
  },
  every: (ms, fn) => {
    const timer = setInterval(fn, ms);
    return () => clearInterval(timer);
  },
};
