import type { Replica } from './replicas';

/**
 * The sum of one metric family's samples on `replica`'s /metrics whose labels include every
 * `label="value"` given; 0 when it has none (yet).
 */
export async function metricOf(
  replica: Replica,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${replica.port}/metrics`)).text();
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  let sum = 0;
  for (const line of text.split('\n')) {
    const match = /^([a-z_]+)(\{[^}]*\})? ([-+\deE.]+|NaN)$/.exec(line);
    if (!match || match[1] !== name) continue;
    if (wanted.every((w) => (match[2] ?? '').includes(w))) sum += Number(match[3]);
  }
  return sum;
}
