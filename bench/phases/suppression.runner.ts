import type { Redis } from 'ioredis';
import { AddressKeyer } from '../../src/suppression/address-key';
import type { SuppressionResult } from '../report/result-types';
import { signUpEmail } from '../workloads/event-factory';
import type { BenchContext } from './bench-context';
import { BENCH_SUPPRESSION_HASH_KEY, phaseGroupId, serviceKeyPrefix } from './phase-process';
import { phaseRunName, runThroughput } from './throughput.runner';

/** The suppression section's two lists: empty, and as large as the issue asks to measure. */
export const SUPPRESSION_LIST_SIZES = [0, 100_000] as const;
/** One sign-up in this many is on a filled list (`all`), so that the check finds some. */
const SUPPRESSED_EVERY = 100;
const FIELDS_PER_HSET = 5_000;

/**
 * One repetition of the suppression section with a list of `entries`: the list is written into
 * the service's own namespace before it starts, as the service keeps it (one hash, fields
 * `<scope>:<keyed hash>`), then mailbridge runs the user workload as its throughput phase does.
 * A filled list holds every hundredth sign-up's address (scope `all`: the welcome email is
 * transactional) and the rest addresses no sign-up has, half `all` and half `marketing`. The
 * check is one HMGET per vendor request either way; what the list's size could change is its cost.
 */
export async function runSuppressionList(
  ctx: BenchContext,
  redis: Redis,
  entries: number,
  topic: string,
  expected: number,
  rep: number,
): Promise<SuppressionResult> {
  const name = `suppression-${entries}`;
  const groupId = phaseGroupId(ctx, phaseRunName(name, 'mailbridge', rep));
  const key = `${serviceKeyPrefix(groupId)}suppression`;
  const suppressedSignUps = await fillList(redis, key, entries, expected);
  try {
    const input = { user: topic, order: ctx.emptyTopic };
    const run = await runThroughput(ctx, 'mailbridge', 'user', input, expected, rep, name);
    return {
      ...run,
      variant: `${entries.toLocaleString('en-US')} entries`,
      entries,
      suppressedSignUps,
    };
  } finally {
    await redis.del(key);
  }
}

/** Writes `entries` fields into the hash at `key`; returns how many of them are sign-ups'. */
async function fillList(
  redis: Redis,
  key: string,
  entries: number,
  signUps: number,
): Promise<number> {
  if (entries === 0) return 0;
  const keyer = new AddressKeyer(BENCH_SUPPRESSION_HASH_KEY);
  const suppressed = Math.min(Math.ceil(signUps / SUPPRESSED_EVERY), entries);
  let fields: string[] = [];
  for (let i = 0; i < entries; i++) {
    const field =
      i < suppressed
        ? `all:${keyer.of(signUpEmail(i * SUPPRESSED_EVERY))}`
        : `${i % 2 === 0 ? 'all' : 'marketing'}:${keyer.of(`nobody.${i}@elsewhere.example`)}`;
    fields.push(field, 'unsubscribed');
    if (fields.length === FIELDS_PER_HSET * 2 || i === entries - 1) {
      await redis.hset(key, ...fields);
      fields = [];
    }
  }
  // The machine's Redis is shared: a list left by a broken run goes as the run's other keys do.
  await redis.expire(key, 900);
  const size = await redis.hlen(key);
  if (size !== entries)
    throw new Error(`the suppression list holds ${size} entries, not ${entries}`);
  return suppressed;
}
