import { loadConfig } from '../../src/config/config.loader';
import type { UserSignedUpV1 } from '../../src/contracts/user-signed-up.v1';
import { campaignBody } from '../../src/email-api/campaign.splitter';
import type { CampaignRequest } from '../../src/email-api/vendor.types';
import { WelcomePlanner } from '../../src/templates/welcome/welcome.planner';
import { median } from '../measure/percentiles';
import { userSignedUp } from '../workloads/event-factory';

/** What `npm run bench:body` reports: the body's size, and µs per body, median round. */
export interface BodyCost {
  bytes: number;
  before: number;
  after: number;
}

type Build = () => Buffer;

/**
 * Times building the UTF-8 body of one campaign request of `recipients` sign-ups (the welcome
 * template's real content, the benchmark's sign-ups) from recipients serialised beforehand, as
 * the batcher has them: **after**, as `campaignBody` does it (the shared content and each
 * recipient written straight into one buffer), and **before**, as it did until 2026-11-27 (one
 * string joined from them all, encoded whole by undici). Rounds of about `seconds` alternate in
 * order; the median round of each counts. Throws if the two bodies differ by a byte.
 */
export function bodyCost(recipients: number, rounds: number, seconds: number): BodyCost {
  const planner = new WelcomePlanner(
    loadConfig({ MAILBRIDGE_MODE: 'local', SENDER_FROM_EMAIL: 'bench@mailbridge.local' }),
  );
  const plans = Array.from({ length: recipients }, (_, n) =>
    planner.plan(JSON.parse(userSignedUp(n).value) as UserSignedUpV1),
  );
  const content: Omit<CampaignRequest, 'recipients'> = plans[0].content;
  const to = plans.map((plan) => plan.recipients[0]);
  const json = to.map((recipient) => JSON.stringify(recipient));
  const indexes = [...to.keys()];

  const after: Build = () => campaignBody(content, to, indexes, json);
  const before: Build = () => {
    const empty = JSON.stringify({ ...content, recipients: { to: [] } });
    return Buffer.from(`${empty.slice(0, -3)}${indexes.map((i) => json[i]).join(',')}]}}`);
  };
  // Both must build the same bytes, or the figures would compare different work.
  const body = after();
  if (!body.equals(before())) throw new Error('the two bodies differ');

  const builds = { before, after };
  const times = { before: [] as number[], after: [] as number[] };
  for (const name of ['before', 'after'] as const) round(builds[name], seconds / 2); // warm-up
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? (['before', 'after'] as const) : (['after', 'before'] as const);
    for (const name of order) times[name].push(round(builds[name], seconds));
  }
  return { bytes: body.length, before: median(times.before), after: median(times.after) };
}

/** A round of about `seconds`: µs per body. */
function round(build: Build, seconds: number): number {
  const deadline = process.hrtime.bigint() + BigInt(Math.round(seconds * 1e9));
  const started = process.hrtime.bigint();
  let calls = 0;
  let now = started;
  while (now < deadline) {
    for (let i = 0; i < 10; i++) build();
    calls += 10;
    now = process.hrtime.bigint();
  }
  return Number(now - started) / 1000 / calls;
}
