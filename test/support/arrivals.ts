/** Most of `times` (ms) that any window of `windowMs` holds, the window sliding over them. */
export function busiestWindow(times: number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let first = 0, last = 0; last < sorted.length; last++) {
    while (sorted[last] - sorted[first] >= windowMs) first++;
    most = Math.max(most, last - first + 1);
  }
  return most;
}

/** How many of `times` (ms) fall in each calendar minute (UTC), by the minute's ISO start. */
export function perCalendarMinute(times: number[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const time of [...times].sort((a, b) => a - b)) {
    const minute = new Date(Math.floor(time / 60_000) * 60_000).toISOString().slice(0, 16);
    counts.set(minute, (counts.get(minute) ?? 0) + 1);
  }
  return counts;
}
