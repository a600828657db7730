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
        const answered = new Set(sent.map((r) => r.sourceeventid));
        return answered.size >= events.length ? sent : undefined;
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

describe('batching: a backlog of 2,000 sign-ups behind a slow vendor', () => {
  const fixture = new PipelineFixture();
  const run = uniqueName('backlog');
  const events = Array.from({ length: 2000 }, (_, i) => signUp(i, run));
  const maxRecipients = 100;

  beforeAll(async () => {
    await fixture.start({ latencyMs: 200 });
    await fixture.publish('TOPIC_USER_SIGNED_UP', events, (e) => e.data.userId);
  });
  afterAll(() => fixture.stop());

  it('fill their requests past the linger while the backlog lasts (BATCH_MAX_LINGER_MS)', async () => {
    // A linger far shorter than a request takes to fill, and a window of one and a half requests
    // that a request at the vendor (200 ms) keeps part full: only waiting past the linger while
    // records wait fills the next.
    await fixture.startService({
      BATCH_MAX_RECIPIENTS: String(maxRecipients),
      BATCH_LINGER_MS: '5',
      BATCH_MAX_LINGER_MS: '10000',
      CONSUMER_MAX_IN_FLIGHT: '150',
    });
    await waitFor(
      () =>
        fixture.collector.answered(fixture.topics.TOPIC_CAMPAIGN_SENT).size >= events.length ||
        undefined,
      { timeoutMs: 90_000, what: 'an email.campaign.sent.v1 event for each of 2,000 sign-ups' },
    );
    const repeated = fixture.collector.count(fixture.topics.TOPIC_CAMPAIGN_SENT) - events.length;
    const campaigns = fixture.sandbox.requests.filter((r) => r.path.endsWith('/email/campaign'));
    const sizes = campaigns.map((r) => (r.body as CampaignRequest).recipients.to.length);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(events.length);
    const full = sizes.filter((n) => n === maxRecipients).length;
    process.stderr.write(
      `[figures] backlog of 2,000: ${campaigns.length} requests, ${full} full: ${sizes.join(' ')}; ` +
        `${repeated} results published again\n`,
    );
    // Without the stretch (BATCH_MAX_LINGER_MS=0) every third request goes at the linger with the
    // half request the window has room for: 14 full of 30 when tried. With it, 18 of 22: the
    // requests that go part full are those gathering when a partition's last fetched records are
    // all taken in (nothing known to wait until its next fetch), and the last.
    expect(full).toBeGreaterThanOrEqual(16);
  });
});
