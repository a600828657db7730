/**
 * How long the vendor takes to answer. `fixed`: always `baseMs`. `tail`: `baseMs`, plus, for a
 * `tailShare` of the answers, an exponentially distributed extra delay of mean `tailMeanMs`
 * (capped at `tailCapMs`), the shape of a busy remote API.
 */
export interface LatencyProfile {
  name: string;
  baseMs: number;
  tailShare: number;
  tailMeanMs: number;
  tailCapMs: number;
}

export function fixedLatency(ms: number): LatencyProfile {
  return { name: `${ms} ms fixed`, baseMs: ms, tailShare: 0, tailMeanMs: 0, tailCapMs: 0 };
}

/** The backlog test's profile: 125 ms, and one answer in twenty slower by 250 ms on average. */
export const SLOW_WITH_TAIL: LatencyProfile = {
  name: '125 ms + tail (5% +Exp(250 ms), cap 2 s)',
  baseMs: 125,
  tailShare: 0.05,
  tailMeanMs: 250,
  tailCapMs: 2_000,
};

export function sampleLatency(profile: LatencyProfile, random: () => number = Math.random): number {
  if (profile.tailShare === 0 || random() >= profile.tailShare) return profile.baseMs;
  const extra = -Math.log(1 - random()) * profile.tailMeanMs;
  return profile.baseMs + Math.min(extra, profile.tailCapMs);
}
