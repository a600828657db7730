import type { INestApplication } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import type { EmailUnsubscribedV1 } from '@mailbridge/contracts';
import { startApp } from '../../src/app';
import { loadConfig } from '../../src/config/config.loader';
import type { CampaignRequest } from '../../src/email-api/vendor.types';
import { MetricsService } from '../../src/metrics/metrics.service';
import { SuppressionList } from '../../src/suppression/suppression-list';
import { UnsubscribeTokens } from '../../src/unsubscribe/unsubscribe-token';
import { campaignRequested } from '../support/events';
import {
  createTopics,
  produce,
  TopicCollector,
  uniqueName,
  waitFor,
} from '../support/kafka-helpers';
import { freePort } from '../support/free-port';
import { PrivateBroker } from '../support/private-broker';
import { PipelineFixture } from '../support/service-harness';

/*
 * One-click unsubscribe end to end, on the real broker and Redis: the public listener stores the
 * suppression that the next send honours, and publishes email.unsubscribed.v1 once per
 * unsubscribe, also when the broker is away during the POST.
 */

const KEY = randomBytes(32).toString('base64');
const DAY = 86_400;
const tokens = new UnsubscribeTokens([KEY], 90 * DAY);
/** The first suite's listener, on a free port found before it starts. */
let listenerPort = 0;

function unsubscribeEnv(port: number): Record<string, string> {
  return {
    UNSUBSCRIBE_TOKEN_KEY: KEY,
    UNSUBSCRIBE_HTTP_PORT: String(port),
    UNSUBSCRIBE_BASE_URL: `http://127.0.0.1:${port}`,
  };
}

function post(token: string, port = listenerPort): Promise<Response> {
  return fetch(`http://127.0.0.1:${port}/unsubscribe/${token}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'List-Unsubscribe=One-Click',
  });
}

describe('one-click unsubscribe', () => {
  const fixture = new PipelineFixture();
  let unsubscribed: () => EmailUnsubscribedV1[];
  let suppressed: (address: string) => Promise<boolean>;
  /** The service's /metrics text. */
  let scrape: () => Promise<string>;

  beforeAll(async () => {
    await fixture.start();
    listenerPort = await freePort();
    const app = await fixture.startService(unsubscribeEnv(listenerPort));
    scrape = () => app.get(MetricsService).registry.metrics();
    const list = app.get(SuppressionList);
    suppressed = async (address) => (await list.check([address], 'marketing'))[0];
    unsubscribed = () =>
      fixture.collector.results<EmailUnsubscribedV1>(fixture.topics.TOPIC_UNSUBSCRIBED);
  });
  afterAll(() => fixture.stop());

  /** Waits for the event of `address`'s unsubscribe, once `fence` unsubscribed after it. */
  const eventsOf = (address: string) => unsubscribed().filter((e) => e.data.address === address);

  it('suppresses the next marketing send and publishes email.unsubscribed.v1', async () => {
    const command = campaignRequested(1, uniqueName('unsub'));
    const { recipients } = command.data as unknown as CampaignRequest;
    const [ada, bob] = recipients.to.map((r) => r.email);
    const answer = await post(tokens.seal(ada, 'marketing'));
    expect(answer.status).toBe(200);

    const [event] = await waitFor(() => (eventsOf(ada).length > 0 ? eventsOf(ada) : undefined), {
      what: 'email.unsubscribed.v1',
    });
    expect(event).toMatchObject({
      type: 'email.unsubscribed.v1',
      sourceeventid: event.data.unsubscribeId,
      data: { address: ada, category: 'marketing', scope: 'marketing' },
    });
    const record = fixture.collector.messages.find(
      (m) =>
        m.topic === fixture.topics.TOPIC_UNSUBSCRIBED &&
        m.key?.toString() === event.data.unsubscribeId,
    );
    expect(record).toBeDefined();
    // The answer and the event published are on the service's own /metrics.
    const metrics = await scrape();
    expect(metrics).toMatch(/^mailbridge_unsubscribe_answers_total\{status="200"\} [1-9]/m);
    expect(metrics).toMatch(/^mailbridge_unsubscribe_events_published_total [1-9]/m);
    expect(metrics).toMatch(/^mailbridge_unsubscribe_outbox_blocked 0$/m);

    await produce(fixture.kafka, fixture.topics.TOPIC_CAMPAIGN_REQUESTED, [
      { key: command.id, value: JSON.stringify(command) },
    ]);
    await waitFor(
      () =>
        fixture.collector.answered(fixture.topics.TOPIC_CAMPAIGN_SENT).has(command.id) || undefined,
      {
        what: 'the campaign command’s result',
      },
    );
    const sent = fixture.sandbox.requests
      .filter((r) => r.path.endsWith('/email/campaign'))
      .flatMap((r) => (r.body as CampaignRequest).recipients.to.map((to) => to.email));
    expect(sent).toContain(bob);
    expect(sent).not.toContain(ada);
  });

  it('a forged and an expired token are refused with a 4xx and change nothing', async () => {
    const victim = `victim-${uniqueName('a')}@example.com`;
    const forged = `${tokens.seal(victim, 'marketing').split('.')[0]}.${randomBytes(90).toString('base64url')}`;
    const sealedLongAgo = new UnsubscribeTokens(
      [KEY],
      60 * DAY,
      () => Date.now() - 61 * DAY * 1000,
    );
    expect((await post(forged)).status).toBe(403);
    expect((await post(sealedLongAgo.seal(victim, 'marketing'))).status).toBe(410);

    // A genuine unsubscribe after them: once its event is out, any of theirs would be too.
    const fence = `fence-${uniqueName('a')}@example.com`;
    expect((await post(tokens.seal(fence, 'marketing'))).status).toBe(200);
    await waitFor(() => eventsOf(fence).length > 0 || undefined, { what: 'the fence’s event' });
    expect(eventsOf(victim)).toEqual([]);
    expect(await suppressed(victim)).toBe(false);
    expect(await suppressed(fence)).toBe(true);
  });

  it('the same POST twice is one unsubscribe: one event', async () => {
    const address = `twice-${uniqueName('a')}@example.com`;
    const token = tokens.seal(address, 'marketing');
    expect((await post(token)).status).toBe(200);
    expect((await post(token)).status).toBe(200);
    const fence = `fence-${uniqueName('a')}@example.com`;
    expect((await post(tokens.seal(fence, 'marketing'))).status).toBe(200);
    await waitFor(() => (eventsOf(address).length > 0 && eventsOf(fence).length > 0) || undefined, {
      what: 'both events',
    });
    expect(eventsOf(address)).toHaveLength(1);
  });
});

describe('one-click unsubscribe while the broker is stopped', () => {
  const fixture = new PipelineFixture();
  let broker: PrivateBroker;
  let app: INestApplication | undefined;
  let collector: TopicCollector | undefined;

  beforeAll(async () => {
    broker = await PrivateBroker.start();
    await fixture.start();
  });
  afterAll(async () => {
    await collector?.stop();
    await app?.close();
    await fixture.stop();
    await broker?.destroy();
  });

  it('answers 200 once the suppression is stored, and publishes the event once the broker is back', async () => {
    const topics = fixture.topics;
    const port = await freePort();
    await createTopics(broker.kafka(), Object.values(topics), 1, [fixture.groupId]);
    const env = fixture.env({
      ...unsubscribeEnv(port),
      KAFKA_BROKERS: broker.address,
    });
    app = await startApp(loadConfig(env));

    await broker.stop();
    const address = `away-${uniqueName('a')}@example.com`;
    const answer = await post(tokens.seal(address, 'marketing'), port);
    expect(answer.status).toBe(200);

    await broker.restart();
    collector = await new TopicCollector(broker.kafka()).start([topics.TOPIC_UNSUBSCRIBED]);
    const events = await waitFor(
      () => {
        const found = collector!
          .results<EmailUnsubscribedV1>(topics.TOPIC_UNSUBSCRIBED)
          .filter((e) => e.data.address === address);
        return found.length > 0 ? found : undefined;
      },
      { what: 'the event after the broker restart', timeoutMs: 90_000 },
    );
    expect(events).toHaveLength(1);
  }, 240_000);
});
