import type { BenchOptions } from '../config/bench-options';
import { loadConfig } from '../../src/config/config.loader';
import type { LocaleResult } from '../report/result-types';
import type { LocaleMix } from '../workloads/event-factory';
import type { BenchContext } from './bench-context';
import { runThroughput } from './throughput.runner';

/**
 * One repetition of one workload of the locales section: mailbridge, as the user workload's
 * throughput phase runs it, over the mix's preloaded sign-ups. What the mixes are compared by is
 * in the result: recipients per request (and how many requests were full) and the service's CPU
 * per 1,000 sign-ups; the more locales, the more batch keys, so the more requests part-filled.
 */
export async function runLocaleMix(
  ctx: BenchContext,
  mix: LocaleMix,
  topic: string,
  expected: number,
  rep: number,
  maxRecipients: number | null,
): Promise<LocaleResult> {
  const input = { user: topic, order: ctx.emptyTopic };
  const run = await runThroughput(ctx, 'mailbridge', 'user', input, expected, rep, mix);
  return {
    ...run,
    mix,
    maxRecipients,
    fullRequests: maxRecipients === null ? null : (run.vendor.campaignSizes[maxRecipients] ?? 0),
  };
}

/**
 * How many recipients fill a campaign request of the service under test: BATCH_MAX_RECIPIENTS
 * as its own configuration reads it (its default, or what `--service-env` sets). Null when that
 * configuration does not load here; the runs then go on without a count of full requests.
 */
export function serviceMaxRecipients(options: BenchOptions): number | null {
  try {
    // Local mode needs no broker or vendor settings; batching's defaults are the same in both.
    return loadConfig({
      SENDER_FROM_EMAIL: 'bench@mailbridge.local',
      ...options.serviceEnv,
      MAILBRIDGE_MODE: 'local',
    }).batching.maxRecipients;
  } catch {
    return null;
  }
}
