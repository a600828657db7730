import type { EmailCampaignSentV1 } from '../../src/contracts/email-campaign-sent.v1';
import type { CampaignRequest } from '../../src/email-api/vendor.types';
import { signUp } from '../support/events';
import { uniqueName, waitFor } from '../support/kafka-helpers';
import { PipelineFixture } from '../support/service-harness';

jest.setTimeout(120_000);

describe('batching: 1,000 user.signed_up.v1 events', () => {
  const fixture = new PipelineFixture();
  const run = uniqueName('batch');
  const events = Array.from({ length: 1000 }, (_, i) => signUp(i, run));
  const maxRecipients = 100;

  beforeAll(async () => {
    await fixture.start();
    await fixture.publish('TOPIC_USER_SIGNED_UP', events, (e) => e.data.userId);
  });
  afterAll(() => fixture.stop());

  it('become few campaign requests, every recipient once with their own attributes', async () => {
    const started = Date.now();
    await fixture.startService({
      BATCH_MAX_RECIPIENTS: String(maxRecipients),
      BATCH_LINGER_MS: '200',
    });
    const results = await waitFor(
      () => {
        const sent = fixture.collector.results<EmailCampaignSentV1>(
          fixture.topics.TOPIC_CAMPAIGN_SENT,
        );
        return sent.length >= events.length ? sent : undefined;
      },
      { timeoutMs: 90_000, what: '1,000 email.campaign.sent.v1 events' },
    );
    const seconds = (Date.now() - started) / 1000;

    const campaigns = fixture.sandbox.requests.filter((r) => r.path.endsWith('/email/campaign'));
    expect(campaigns.every((r) => r.status === 200)).toBe(true);
    const carriedBy = new Map<string, { requestId: string; attributes?: Record<string, string> }>();
    let recipients = 0;
    for (const request of campaigns) {
      const body = request.body as CampaignRequest;
      const { requestId } = request.response as { requestId: string };
      for (const r of body.recipients.to) {
        expect(carriedBy.has(r.email)).toBe(false); // nobody twice
        carriedBy.set(r.email, { requestId, attributes: r.attributes });
        recipients += 1;
      }
    }
    expect(recipients).toBe(events.length);
    expect(campaigns.length).toBeGreaterThanOrEqual(Math.ceil(events.length / maxRecipients));
    expect(campaigns.length).toBeLessThanOrEqual(2 * Math.ceil(events.length / maxRecipients));

    expect(results).toHaveLength(events.length);
    const byEvent = new Map(results.map((r) => [r.sourceeventid, r]));
    expect(byEvent.size).toBe(events.length);
    for (const event of events) {
      const carried = carriedBy.get(event.data.email);
      expect(carried?.attributes).toEqual({
        FIRST_NAME: 'User',
        FULL_NAME: event.data.name,
        PLAN: event.data.plan,
        USER_ID: event.data.userId,
      });
      expect(byEvent.get(event.id)?.data.requestId).toBe(carried?.requestId);
    }
    process.stderr.write(
      `[figures] 1,000 sign-ups: ${campaigns.length} requests, ` +
        `${(recipients / campaigns.length).toFixed(1)} recipients/request, ` +
        `${(events.length / seconds).toFixed(0)} events/s from service ready to last result (${seconds.toFixed(2)} s)\n`,
    );
  });
});
