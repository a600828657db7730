export interface Percentiles {
  p50: number | null;
  p95: number | null;
  p99: number | null;
  max: number | null;
}

/**
 * Exact percentiles (nearest rank) of `values`, counting `missing` values as slower than any
 * measured one: an event that never produced a result within the window is not left out (that
 * would flatter a saturated phase); a percentile that falls among them is null ("beyond the
 * window").
 */
export function percentiles(values: number[], missing = 0): Percentiles {
  const sorted = Float64Array.from(values).sort();
  const total = sorted.length + missing;
  const at = (q: number): number | null => {
    if (total === 0) return null;
    const rank = Math.max(1, Math.ceil(q * total)) - 1;
    return rank < sorted.length ? Math.round(sorted[rank]) : null;
  };
  return {
    p50: at(0.5),
    p95: at(0.95),
    p99: at(0.99),
    max: missing > 0 || sorted.length === 0 ? null : Math.round(sorted[sorted.length - 1]),
  };
}

export function median(values: number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
