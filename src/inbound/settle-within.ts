export type Settled<T> =
  { kind: 'done'; value: T } | { kind: 'failed'; error: Error } | { kind: 'timeout' };

/**
 * Waits for `promise` at most `ms`, and never rejects: the stop path must end whatever kafkajs
 * does, so each of its steps is given a time and told how it ended. The promise itself runs on.
 */
export async function settleWithin<T>(promise: Promise<T>, ms: number): Promise<Settled<T>> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Settled<T>>((resolve) => {
    timer = setTimeout(() => resolve({ kind: 'timeout' }), ms);
  });
  const settled = promise.then(
    (value): Settled<T> => ({ kind: 'done', value }),
    (error: unknown): Settled<T> => ({
      kind: 'failed',
      error: error instanceof Error ? error : new Error(String(error)),
    }),
  );
  try {
    return await Promise.race([settled, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** How a stop step that did not succeed ended, for its warning. */
export function howItEnded(settled: { kind: string; error?: Error; value?: unknown }): string {
  if (settled.kind === 'timeout') return 'timed out';
  if (settled.kind === 'failed') return settled.error?.message ?? 'failed';
  return 'not acknowledged by the broker';
}
