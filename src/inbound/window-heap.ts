const MiB = 2 ** 20;

/**
 * What the heap holds besides the window, and what each record the window may hold adds to it:
 * the record decoded, its parsed event, its claim, the promises waiting on it, its result, and its
 * share of the fetched records kafkajs has decoded that wait to be admitted. Fitted to heap
 * snapshots of the benchmark's backlog of `user.signed_up.v1` under the image's heap limit, at
 * two window sizes (the figures are in the commit that set these). Larger events weigh more.
 */
export const HEAP_BASE_BYTES = 25 * MiB;
export const HEAP_BYTES_PER_RECORD = 24 * 1024;

/**
 * The share of the heap limit the live heap may take at a full window: the rest is V8's room to
 * collect in. In the same benchmark the largest window under this share drained at full rate,
 * and the next sizes above it ran out of memory (the figures are in the commit that set it).
 */
export const HEAP_LIVE_SHARE = 0.7;

/**
 * Says why a window of `maxInFlight` records is too large for `heapLimitBytes` (V8's
 * `heap_size_limit`), and what fits; undefined when it fits. An estimate from the figures
 * above, so a warning rather than a refusal: a backlog is when it would show.
 */
export function windowHeapWarning(maxInFlight: number, heapLimitBytes: number): string | undefined {
  const live = HEAP_BASE_BYTES + maxInFlight * HEAP_BYTES_PER_RECORD;
  const usable = heapLimitBytes * HEAP_LIVE_SHARE;
  if (live <= usable) return undefined;
  const fits = Math.max(0, Math.floor((usable - HEAP_BASE_BYTES) / HEAP_BYTES_PER_RECORD));
  const heapNeeded = Math.ceil(live / HEAP_LIVE_SHARE / MiB);
  const raise = `the heap limit (NODE_OPTIONS --max-old-space-size) to give a heap of about ${heapNeeded} MB`;
  const remedy =
    fits >= 1
      ? `Lower CONSUMER_MAX_IN_FLIGHT to ${fits} or less, or raise ${raise}`
      : `Raise ${raise}`;
  return (
    `CONSUMER_MAX_IN_FLIGHT=${maxInFlight} needs about ${Math.ceil(live / MiB)} MB of live heap ` +
    `at a full window, more than ${Math.round(HEAP_LIVE_SHARE * 100)} % of the heap limit ` +
    `(${Math.round(heapLimitBytes / MiB)} MB): a backlog would keep the garbage collector busy or ` +
    `run out of memory. ${remedy}`
  );
}
