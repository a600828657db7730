import { loadConfig } from '../../src/config/config.loader';
import type { UserSignedUpV1 } from '../../src/contracts/user-signed-up.v1';
import { campaignBody } from '../../src/email-api/campaign.splitter';
import type { CampaignRequest } from '../../src/email-api/vendor.types';
import { WelcomePlanner } from '../../src/templates/welcome/welcome.planner';
import { alternatingRounds } from '../measure/alternating-rounds';
import { userSignedUp } from '../workloads/event-factory';

/** What `npm run bench:body` reports: the body's size, and µs per body, median round. */
export interface BodyCost {
  bytes: number;
  before: number;
  after: number;
}

/**
 * Times building the UTF-8 body of one campaign request of `recipients` sign-ups (the welcome
 * template's real content, the benchmark's sign-ups) from recipients serialised beforehand, as
 * the batcher has them: **after**, as `campaignBody` does it (the shared content and each
 * recipient written straight into one buffer), and **before**, as it did until 2026-11-27 (one
 * string joined from them all, encoded whole by undici). Rounds of about `seconds` alternate in
 * order (`alternatingRounds`); the median round of each counts. Throws if the two bodies differ
 * by a byte.
 */
export async function bodyCost(
  recipients: number,
  rounds: number,
  seconds: number,
): Promise<BodyCost> {
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

  const after = () => campaignBody(content, to, indexes, json);
  const before = () => {
    const empty = JSON.stringify({ ...content, recipients: { to: [] } });
    return Buffer.from(`${empty.slice(0, -3)}${indexes.map((i) => json[i]).join(',')}]}}`);
  };
  // Both must build the same bytes, or the figures would compare different work.
  const body = after();
  if (!body.equals(before())) throw new Error('the two bodies differ');

  const times = await alternatingRounds({ before, after }, rounds, seconds);
  return { bytes: body.length, ...times };
}
