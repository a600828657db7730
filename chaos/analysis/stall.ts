/** How long after a fault the stall it causes may begin; results keep coming between faults. */
export const STALL_WINDOW_MS = 60_000;

/**
 * The longest time without a new result that began at or after `from` and within `withinMs` of
 * it: the fault's moment counts as the first point, so the wait for the first result after it
 * is a gap too. `times` are the results' broker timestamps, sorted. Undefined when no result came
 * after `from` at all (nothing to measure a stall against).
 */
export function longestStall(
  times: number[],
  from: number,
  withinMs = STALL_WINDOW_MS,
): number | undefined {
  let previous = from;
  let longest: number | undefined;
  for (const at of times) {
    if (at < from) continue;
    if (previous > from + withinMs) break;
    longest = Math.max(longest ?? 0, at - previous);
    previous = at;
  }
  return longest;
}
