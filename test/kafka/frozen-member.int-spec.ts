import type { CampaignRequest } from '../../src/email-api/vendor.types';
import { signUp } from '../support/events';
import { uniqueName, waitFor } from '../support/kafka-helpers';
import { Replicas } from '../support/replicas';
import { PipelineFixture } from '../support/service-harness';

jest.setTimeout(240_000);

const SESSION_TIMEOUT_MS = 9_000;

/**
 * A replica frozen past its session timeout (SIGSTOP: a long pause, a throttled container, a
 * suspended VM) is dropped from its group. Woken, it must find out, join again and go on
 * consuming, and send nothing twice, while events arrive throughout.
 */
describe('a replica frozen past its session timeout', () => {
  const fixture = new PipelineFixture();
  const run = uniqueName('frozen');
  const events = Array.from({ length: 90 }, (_, i) => signUp(i, run));
  let replicas: Replicas;

  beforeAll(async () => {
    await fixture.start();
    replicas = new Replicas(fixture, {
      KAFKA_SESSION_TIMEOUT_MS: String(SESSION_TIMEOUT_MS),
      BATCH_LINGER_MS: '200',
    });
  });

  afterAll(async () => {
    await replicas?.stopAll();
    await fixture.stop();
  });

  it('joins its group again when woken, answers every event and sends each once', async () => {
    const [frozen] = await replicas.startReady(1);
    const sent = fixture.topics.TOPIC_CAMPAIGN_SENT;
    const answered = (batch: typeof events) => () =>
      batch.every((e) => fixture.collector.answered(sent).has(e.id)) || undefined;

    await fixture.publish('TOPIC_USER_SIGNED_UP', events.slice(0, 30), (e) => e.data.userId);
    await waitFor(answered(events.slice(0, 30)), { timeoutMs: 60_000, what: 'the first 30' });

    frozen.service.child.kill('SIGSTOP');
    try {
      await fixture.publish('TOPIC_USER_SIGNED_UP', events.slice(30, 60), (e) => e.data.userId);
      await new Promise((resolve) => setTimeout(resolve, SESSION_TIMEOUT_MS * 2));
    } finally {
      frozen.service.child.kill('SIGCONT');
    }
    await fixture.publish('TOPIC_USER_SIGNED_UP', events.slice(60), (e) => e.data.userId);
    try {
      await waitFor(answered(events), { timeoutMs: 120_000, what: 'every event answered' });
    } catch (error) {
      replicas.printTails(80);
      throw error;
    }
    const emails = fixture.sandbox.requests
      .filter((r) => r.status === 200 && r.path.endsWith('/email/campaign'))
      .flatMap((r) => (r.body as CampaignRequest).recipients.to.map((t) => t.email));
    expect(emails.sort()).toEqual(events.map((e) => e.data.email).sort());
    // The freeze did cost it its membership: what was answered, it answered after joining again.
    expect(frozen.service.output()).toMatch(/not aware of this member, re-joining the group/);
    await waitFor(async () => (await replicas.readiness(frozen)).status === 200 || undefined, {
      what: 'the woken replica ready',
    });
  });
});
