import { median } from './percentiles';

/**
 * Times each of `calls` in `rounds` rounds of about `seconds` each, after one warm-up round of
 * half that, and gives each one's median µs per call. The order of the calls is reversed from
 * one round to the next, so that drift on a shared machine favours none. A call that returns a
 * promise is awaited.
 */
export async function alternatingRounds<K extends string>(
  calls: Record<K, () => unknown>,
  rounds: number,
  seconds: number,
): Promise<Record<K, number>> {
  const names = Object.keys(calls) as K[];
  const times = new Map<K, number[]>(names.map((name) => [name, []]));
  for (const name of names) await round(calls[name], seconds / 2);
  for (let r = 0; r < rounds; r++) {
    for (const name of r % 2 === 0 ? names : [...names].reverse()) {
      times.get(name)!.push(await round(calls[name], seconds));
    }
  }
  return Object.fromEntries(names.map((name) => [name, median(times.get(name)!)])) as Record<
    K,
    number
  >;
}

/** µs per call over one round of about `seconds`. */
async function round(call: () => unknown, seconds: number): Promise<number> {
  const deadline = process.hrtime.bigint() + BigInt(Math.round(seconds * 1e9));
  const started = process.hrtime.bigint();
  let calls = 0;
  let now = started;
  while (now < deadline) {
    for (let i = 0; i < 10; i++) await call();
    calls += 10;
    now = process.hrtime.bigint();
  }
  return Number(now - started) / 1000 / calls;
}
