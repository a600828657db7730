import { signUp } from '../support/events';
import { groupLag, uniqueName, waitFor } from '../support/kafka-helpers';
import { PipelineFixture } from '../support/service-harness';

jest.setTimeout(120_000);

describe('a graceful stop while vendor requests are in flight', () => {
  const fixture = new PipelineFixture();
  const run = uniqueName('stop');
  const events = Array.from({ length: 50 }, (_, i) => signUp(i, run));

  beforeAll(async () => {
    // Answers spread over ~4 s, so that some results are out and others still in flight when
    // the stop begins: the in-flight ones finish during it, as under a real SIGTERM.
    await fixture.start({ latencyMs: 300, latencyJitterMs: 4_000 });
    await fixture.publish('TOPIC_USER_SIGNED_UP', events, (e) => e.data.userId);
  });
  afterAll(() => fixture.stop());

  it('leaves lag 0 once every result is out (the commit reached the broker)', async () => {
    // No timer commit during the test: whatever is committed, the stop path committed.
    const app = await fixture.startService({
      CONSUMER_COMMIT_INTERVAL_MS: '600000',
      BATCH_MAX_RECIPIENTS: '10',
    });
    const sent = fixture.topics.TOPIC_CAMPAIGN_SENT;
    const atStop = await waitFor(
      () => {
        const count = fixture.collector.count(sent);
        return count > 0 ? count : undefined;
      },
      { timeoutMs: 60_000, what: 'the first results' },
    );
    await fixture.stopService(app);
    expect(atStop).toBeLessThan(events.length); // the scenario holds: work finished during the stop

    await waitFor(() => (fixture.collector.count(sent) >= events.length ? true : undefined), {
      what: 'every result',
    });
    const lag = await groupLag(fixture.kafka, fixture.groupId, fixture.topics.TOPIC_USER_SIGNED_UP);
    expect(lag).toBe(0);
  });
});
