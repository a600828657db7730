import type { EmailCampaignSentV1 } from '../../src/contracts/email-campaign-sent.v1';
import type { EmailContactListCreatedV1 } from '../../src/contracts/email-contact-list-created.v1';
import { ConsumerStatus } from '../../src/inbound/consumer-status';
import { order, signUp } from '../support/events';
import { groupLag, uniqueName, waitFor } from '../support/kafka-helpers';
import { PipelineFixture } from '../support/service-harness';

jest.setTimeout(180_000);

/**
 * An order's contact-list window holds nothing: its member is stored in the window store and its
 * record is committed at once; the list is created, and the order answered, when the window
 * closes. Nothing else waits for the window either.
 */
describe('contact-list windows hold no offsets and no other work', () => {
  const fixture = new PipelineFixture();
  const run = uniqueName('windows');
  const windowMs = 30_000;
  /** Producers' clocks may run this far ahead; the first order uses it to keep its window open. */
  const skewMs = 60_000;
  const signUps = Array.from({ length: 5 }, (_, i) => signUp(i, run));
  /** Two hours ahead: the window it names would hold its record for two hours. */
  const farAhead = order(2, run, new Date(Date.now() + 2 * 3_600_000).toISOString());
  const confirmations = () =>
    fixture.collector.results<EmailCampaignSentV1>(fixture.topics.TOPIC_CAMPAIGN_SENT);
  const lists = () =>
    fixture.collector.results<EmailContactListCreatedV1>(fixture.topics.TOPIC_CONTACT_LIST_CREATED);
  let status: ConsumerStatus;

  beforeAll(async () => {
    await fixture.start();
    const app = await fixture.startService({
      CONTACT_LIST_WINDOW_MS: String(windowMs),
      CONTACT_LIST_CLOCK_SKEW_MS: String(skewMs),
      BATCH_LINGER_MS: '100',
    });
    status = app.get(ConsumerStatus);
  });
  afterAll(() => fixture.stop());

  it('commits an order at once, answers other topics, and answers the order when its window closes', async () => {
    // Placed 45 s ahead (within the skew): its window closes 45 to 75 s from now, however slow
    // the machine was to get here, which leaves the sign-ups below ample time to be answered.
    const inWindow = order(1, run, new Date(Date.now() + 45_000).toISOString());
    await fixture.publish('TOPIC_ORDER_PLACED', [inWindow], (o) => o.data.orderId);
    // Its confirmation sent: the order is in hand, and its list waits for the window to close.
    await waitFor(() => confirmations().find((r) => r.sourceeventid === inWindow.id), {
      what: 'the order confirmation',
    });
    // Committed while its window is still open: no list yet, no offset held.
    await waitFor(
      async () =>
        (await groupLag(fixture.kafka, fixture.groupId, fixture.topics.TOPIC_ORDER_PLACED)) === 0 ||
        undefined,
      { what: 'the order committed while its window is open' },
    );
    expect(lists()).toHaveLength(0);
    await fixture.publish('TOPIC_USER_SIGNED_UP', signUps, (s) => s.data.userId);
    await waitFor(
      () =>
        signUps.every((s) => confirmations().some((r) => r.sourceeventid === s.id)) || undefined,
      { what: 'the welcome results', timeoutMs: 60_000 },
    );
    // Every sign-up answered, and the window is still open: nothing waited for it.
    expect(lists()).toHaveLength(0);
    expect(fixture.sandbox.requests.filter((r) => r.path.endsWith('/contacts'))).toHaveLength(0);

    const created = await waitFor(() => lists().find((r) => r.sourceeventid === inWindow.id), {
      what: 'the contact list of the window',
      timeoutMs: 45_000 + windowMs + 30_000,
    });
    expect(created.data.memberCount).toBe(1);
    expect(fixture.sandbox.requests.filter((r) => r.path.endsWith('/contacts'))).toHaveLength(1);
  });

  it('puts an order placed two hours ahead into the window of the moment it is handled', async () => {
    const handledFrom = Math.floor(Date.now() / windowMs) * windowMs;
    await fixture.publish('TOPIC_ORDER_PLACED', [farAhead], (o) => o.data.orderId);
    const created = await waitFor(() => lists().find((r) => r.sourceeventid === farAhead.id), {
      what: 'the contact list of the far-ahead order',
      timeoutMs: 30_000 + windowMs + 30_000,
    });
    const label = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace(/[-:]/g, '');
    // `new-customers-<window start>`, named to the second: within the windows of this test.
    const start = /new-customers-(\d{8}T\d{6})Z/.exec(created.data.name)?.[1];
    expect(start).toBeDefined();
    expect(start! >= label(handledFrom)).toBe(true);
    expect(start! <= label(Date.now())).toBe(true);
    expect(status.crashCount).toBe(0);
  });
});
