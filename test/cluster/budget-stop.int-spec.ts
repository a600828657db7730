import type { EmailContactListCreatedV1 } from '../../src/contracts/email-contact-list-created.v1';
import { contactListRequested } from '../support/events';
import { uniqueName, waitFor } from '../support/kafka-helpers';
import { Replicas } from '../support/replicas';
import { PipelineFixture } from '../support/service-harness';

jest.setTimeout(180_000);

/** Half a minute of work at 60 a minute: longer than the stop's drain limit. */
const LISTS = 30;
const SHUTDOWN_TIMEOUT_MS = 15_000;

describe('a replica stopped while its contact lists wait for budget tokens', () => {
  const fixture = new PipelineFixture();
  const run = uniqueName('budget-stop');
  const commands = Array.from({ length: LISTS }, (_, i) => contactListRequested(i, run));
  let replicas: Replicas;

  const ready = async (name: string) => {
    const replica = await replicas.startOne(name);
    await waitFor(async () => (await replicas.readiness(replica)).status === 200 || undefined, {
      timeoutMs: 60_000,
      what: `${name} to be ready`,
    });
  };

  beforeAll(async () => {
    await fixture.start();
    replicas = new Replicas(fixture, {
      VENDOR_CONTACTS_RATE: '60/min',
      SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
    });
    await ready('r1');
  }, 90_000);
  afterAll(async () => {
    await replicas?.stopAll();
    await fixture.stop();
  }, 60_000);

  it('stops without waiting for them, and the next replica creates each list once, none ambiguous', async () => {
    await fixture.publish('TOPIC_CONTACT_LIST_REQUESTED', commands, (e) => e.id);
    await waitFor(() => fixture.sandbox.requests.filter((r) => r.status === 200)[1], {
      timeoutMs: 60_000,
      what: 'two lists created',
    });

    const stopped = await replicas.stop('r1');
    console.log(
      `SIGTERM with lists waiting for tokens: exit ${stopped.code} after ${stopped.ms} ms`,
    );
    expect(stopped.code).toBe(0);
    // Waiting out the tokens would take the drain to its limit (the rest need ~25 s).
    expect(stopped.ms).toBeLessThan(SHUTDOWN_TIMEOUT_MS);

    await ready('r2');
    const results = await waitFor(
      () => {
        const r = fixture.collector.results<EmailContactListCreatedV1>(
          fixture.topics.TOPIC_CONTACT_LIST_CREATED,
        );
        return new Set(r.map((e) => e.sourceeventid)).size >= LISTS ? r : undefined;
      },
      { timeoutMs: 90_000, intervalMs: 200, what: 'every contact list to be created' },
    );

    expect(new Set(results.map((r) => r.sourceeventid))).toEqual(
      new Set(commands.map((c) => c.id)),
    );
    // The waiting actions were abandoned before being marked as about to be written: redelivered
    // as plain work, not as sends of unknown fate.
    expect(results.filter((r) => r.data.ambiguous)).toEqual([]);
    expect(fixture.collector.count(fixture.topics.TOPIC_DISPATCH_FAILED)).toBe(0);
    const names = fixture.sandbox.requests
      .filter((r) => r.status === 200)
      .map((r) => (r.body as { name: string }).name);
    expect(names).toHaveLength(LISTS);
    expect(new Set(names).size).toBe(LISTS);
  });
});
