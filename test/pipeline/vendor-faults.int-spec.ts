import type { EmailCampaignSentV1 } from '../../src/contracts/email-campaign-sent.v1';
import type { CampaignRequest } from '../../src/email-api/vendor.types';
import { signUp } from '../support/events';
import { uniqueName, waitFor } from '../support/kafka-helpers';
import { PipelineFixture } from '../support/service-harness';

jest.setTimeout(150_000);

describe('a vendor failing 30% of requests with 503 and 429', () => {
  const fixture = new PipelineFixture();
  const run = uniqueName('faults');
  const events = Array.from({ length: 300 }, (_, i) => signUp(i, run));

  beforeAll(async () => {
    await fixture.start({
      statuses: [
        { status: 503, share: 0.2 },
        { status: 429, share: 0.1, retryAfterSeconds: 0 },
      ],
    });
    await fixture.publish('TOPIC_USER_SIGNED_UP', events, (e) => e.data.userId);
    await fixture.startService({ BATCH_MAX_RECIPIENTS: '10', PAUSE_ON_VENDOR_FAILURE_MS: '200' });
  });
  afterAll(() => fixture.stop());

  it('loses no event and doubles none', async () => {
    const results = await waitFor(
      () => {
        const r = fixture.collector.results<EmailCampaignSentV1>(
          fixture.topics.TOPIC_CAMPAIGN_SENT,
        );
        return r.length >= events.length ? r : undefined;
      },
      { timeoutMs: 120_000, what: 'every event to be sent' },
    );
    expect(new Set(results.map((r) => r.sourceeventid))).toEqual(new Set(events.map((e) => e.id)));
    expect(results).toHaveLength(events.length);
    expect(fixture.collector.count(fixture.topics.TOPIC_DISPATCH_FAILED)).toBe(0);

    const { byStatus } = fixture.sandbox.stats;
    expect((byStatus['503'] ?? 0) + (byStatus['429'] ?? 0)).toBeGreaterThan(0);
    const accepted = fixture.sandbox.requests
      .filter((r) => r.status === 200)
      .flatMap((r) => (r.body as CampaignRequest).recipients.to.map((t) => t.email));
    expect(accepted).toHaveLength(events.length);
    expect(new Set(accepted).size).toBe(events.length);
    process.stderr.write(`[figures] 30% faults: sandbox answered ${JSON.stringify(byStatus)}\n`);
  });
});
