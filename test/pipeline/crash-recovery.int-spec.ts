import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { EmailCampaignSentV1 } from '../../src/contracts/email-campaign-sent.v1';
import type { CampaignRequest } from '../../src/vendor/vendor.types';
import { signUp } from '../support/events';
import { uniqueName, waitFor } from '../support/kafka-helpers';
import { PipelineFixture } from '../support/service-harness';

jest.setTimeout(150_000);

describe('a consumer killed after the vendor accepted, before offsets were committed', () => {
  const fixture = new PipelineFixture();
  const run = uniqueName('crash');
  const events = Array.from({ length: 200 }, (_, i) => signUp(i, run));
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    await fixture.start();
    await fixture.publish('TOPIC_USER_SIGNED_UP', events, (e) => e.data.userId);
  });
  afterAll(async () => {
    child?.kill('SIGKILL');
    await fixture.stop();
  });

  it('is replaced by a new consumer that sends nobody a second email and answers every event', async () => {
    // First instance: a real process, committing so rarely that nothing is committed before the kill.
    child = spawn(process.execPath, [join(__dirname, '../../dist/main.js')], {
      env: {
        PATH: process.env.PATH ?? '',
        ...fixture.env({ CONSUMER_COMMIT_INTERVAL_MS: '600000', BATCH_MAX_RECIPIENTS: '50' }),
      },
      stdio: 'ignore',
    });
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child!.once('exit', (_c, s) => resolve(s)),
    );
    await waitFor(
      () =>
        fixture.collector.count(fixture.topics.TOPIC_CAMPAIGN_SENT) >= events.length
          ? true
          : undefined,
      { timeoutMs: 60_000, what: 'the first instance to send everything' },
    );
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');

    const admin = fixture.kafka.admin();
    await admin.connect();
    const committed = await admin.fetchOffsets({
      groupId: fixture.groupId,
      topics: [fixture.topics.TOPIC_USER_SIGNED_UP],
    });
    await admin.disconnect();
    expect(committed[0].partitions.every((p) => p.offset === '-1')).toBe(true); // the scenario holds
    const requestsBefore = fixture.sandbox.requests.length;

    // Second instance, same group: it gets every record again.
    await fixture.startService({ BATCH_MAX_RECIPIENTS: '50' });
    const results = await waitFor(
      () => {
        const r = fixture.collector.json<EmailCampaignSentV1>(fixture.topics.TOPIC_CAMPAIGN_SENT);
        return r.length >= 2 * events.length ? r : undefined;
      },
      { timeoutMs: 60_000, what: 'the second instance to answer every event again' },
    );

    expect(fixture.sandbox.requests.length).toBe(requestsBefore); // no vendor call at all
    const emails = fixture.sandbox.requests.flatMap((r) =>
      (r.body as CampaignRequest).recipients.to.map((t) => t.email),
    );
    expect(emails).toHaveLength(events.length);
    expect(new Set(emails).size).toBe(events.length);

    // Each event has its result twice, identical: same deterministic id, same requestId.
    for (const event of events) {
      const mine = results.filter((r) => r.correlationId === event.id);
      expect(mine).toHaveLength(2);
      expect(mine[1].id).toBe(mine[0].id);
      expect(mine[1].data.requestId).toBe(mine[0].data.requestId);
    }
  });
});
