import type { EmailCampaignSentV1 } from '../../src/contracts/email-campaign-sent.v1';
import { signUp } from '../support/events';
import { groupLag, uniqueName, waitFor, waitForCoordinator } from '../support/kafka-helpers';
import { PipelineFixture } from '../support/service-harness';

jest.setTimeout(120_000);

describe('where a new consumer group starts (CONSUMER_START_FROM)', () => {
  const fixture = new PipelineFixture();
  const run = uniqueName('backlog');
  const backlog = Array.from({ length: 10 }, (_, i) => signUp(i, run));

  beforeAll(async () => {
    await fixture.start();
    await fixture.publish('TOPIC_USER_SIGNED_UP', backlog, (e) => e.data.userId);
  });
  afterAll(() => fixture.stop());

  const results = () =>
    fixture.collector.results<EmailCampaignSentV1>(fixture.topics.TOPIC_CAMPAIGN_SENT);
  const answered = (events: Array<{ id: string }>) =>
    events.filter((e) => results().some((r) => r.sourceeventid === e.id));

  it('with production defaults, skips what was in the topic before it started', async () => {
    // '' is unset for the loader: production's own default applies, not the harness's.
    const app = await fixture.startService({ CONSUMER_START_FROM: '' });
    // "latest" is resolved at the group's first fetch, just after the join: publish a marker
    // until one is answered, and the position is surely set before the events that count.
    let markers = 0;
    const markerRun = uniqueName('marker');
    await waitFor(
      async () => {
        if (results().some((r) => r.sourceeventid.startsWith(markerRun))) return true;
        const marker = signUp(1000 + markers++, markerRun);
        await fixture.publish('TOPIC_USER_SIGNED_UP', [marker], (e) => e.data.userId);
        return undefined;
      },
      { intervalMs: 500, what: 'a marker to be answered' },
    );
    const laterRun = uniqueName('later');
    const later = Array.from({ length: 10 }, (_, i) => signUp(i, laterRun));
    await fixture.publish('TOPIC_USER_SIGNED_UP', later, (e) => e.data.userId);
    await waitFor(() => (answered(later).length === later.length ? true : undefined), {
      what: 'every later event to be answered',
    });
    // Lag 0: the group's position is past every partition's backlog, whose results, had it
    // been read, would have been published before that commit.
    await waitFor(
      async () =>
        (await groupLag(fixture.kafka, fixture.groupId, fixture.topics.TOPIC_USER_SIGNED_UP)) === 0
          ? true
          : undefined,
      { what: 'the group to commit everything it read' },
    );
    expect(answered(backlog)).toEqual([]);
    await fixture.stopService(app);
  });

  it('with CONSUMER_START_FROM=earliest, a new group reads the backlog', async () => {
    const groupId = uniqueName('mailbridge-earliest'); // a group with no commit yet
    await waitForCoordinator(fixture.kafka, [groupId]);
    const app = await fixture.startService({
      CONSUMER_START_FROM: 'earliest',
      KAFKA_GROUP_ID: groupId,
    });
    const read = await waitFor(
      () => (answered(backlog).length === backlog.length ? answered(backlog) : undefined),
      { what: 'every backlog event to be answered' },
    );
    expect(read).toHaveLength(backlog.length);
    await fixture.stopService(app);
  });
});
