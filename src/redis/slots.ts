import calculateSlot from 'cluster-key-slot';

/**
 * Runs a batch as one call per hash slot of its keys when Redis is sharded (`sharded`: a Redis
 * Cluster runs a script only on keys of one slot), all issued in the same turn, and answers each
 * item in the batch's order. `cluster-key-slot` is the slot function ioredis itself routes by
 * (and depends on), so a group here is what ioredis would send to one node.
 * On one Redis, which holds every slot, the batch stays one call: split there, a batch would
 * become a script call per claim, mark and outcome, and the calls, not the keys in them, are
 * what Redis work costs the service.
 */
export async function perSlot<Item, Reply>(
  items: readonly Item[],
  keyOf: (item: Item) => string,
  run: (group: Item[]) => Promise<Reply[]>,
  { sharded }: { sharded: boolean },
): Promise<Reply[]> {
  if (!sharded) return run([...items]);
  const groups = new Map<number, number[]>();
  items.forEach((item, i) => {
    const slot = calculateSlot(keyOf(item));
    const group = groups.get(slot);
    if (group) group.push(i);
    else groups.set(slot, [i]);
  });
  const replies = new Array<Reply>(items.length);
  await Promise.all(
    [...groups.values()].map(async (indexes) => {
      const answers = await run(indexes.map((i) => items[i]));
      indexes.forEach((i, n) => (replies[i] = answers[n]));
    }),
  );
  return replies;
}
