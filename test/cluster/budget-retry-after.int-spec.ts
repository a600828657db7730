import type { EmailContactListCreatedV1 } from '../../src/contracts/email-contact-list-created.v1';
import { contactListRequested } from '../support/events';
import { uniqueName, waitFor } from '../support/kafka-helpers';
import { metricOf } from '../support/replica-metrics';
import { Replicas } from '../support/replicas';
import { PipelineFixture } from '../support/service-harness';

jest.setTimeout(180_000);

const RETRY_AFTER_SECONDS = 6;
const LISTS = 9;

describe("a 429's Retry-After, seen by one of three replicas", () => {
  const fixture = new PipelineFixture();
  const run = uniqueName('retry-after');
  const commands = Array.from({ length: LISTS }, (_, i) => contactListRequested(i, run));
  let replicas: Replicas;

  beforeAll(async () => {
    // Every request is refused until the test sees the first refusal.
    await fixture.start({
      statuses: [{ status: 429, share: 1, retryAfterSeconds: RETRY_AFTER_SECONDS }],
    });
    replicas = new Replicas(fixture, { VENDOR_CONTACTS_RATE: '60/min' });
    await replicas.startReady(3, 60_000); // within this hook's 90 s
  }, 90_000);
  afterAll(async () => {
    await replicas?.stopAll();
    await fixture.stop();
  }, 60_000);

  it('holds back every replica until the Retry-After has passed', async () => {
    await fixture.publish('TOPIC_CONTACT_LIST_REQUESTED', commands, (e) => e.id);
    await waitFor(() => fixture.sandbox.requests.find((r) => r.status === 429), {
      timeoutMs: 60_000,
      what: 'the first 429',
    });
    fixture.sandbox.setFaults({});

    const results = await waitFor(
      () => {
        const r = fixture.collector.results<EmailContactListCreatedV1>(
          fixture.topics.TOPIC_CONTACT_LIST_CREATED,
        );
        return new Set(r.map((e) => e.sourceeventid)).size >= LISTS ? r : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 200, what: 'every contact list to be created' },
    ).catch((error: unknown) => {
      // What each replica said, and what the sandbox saw, so that a failure can be read.
      replicas.printTails();
      const seen = fixture.sandbox.requests.map((r) => `${r.at} ${r.status}`).join('\n');
      process.stderr.write(`--- sandbox requests:\n${seen}\n`);
      throw error;
    });

    const requests = fixture.sandbox.requests.map((r) => ({ ...r, ms: Date.parse(r.at) }));
    const refusals = requests.filter((r) => r.status === 429);
    expect(refusals.length).toBeGreaterThanOrEqual(1);
    for (const refusal of refusals) {
      const held = requests.filter(
        (r) => r.ms > refusal.ms && r.ms < refusal.ms + RETRY_AFTER_SECONDS * 1000,
      );
      expect(held).toEqual([]);
    }
    const after = requests.filter((r) => r.ms >= refusals[0].ms + RETRY_AFTER_SECONDS * 1000);
    console.log(
      `429 at ${refusals[0].at}; next request ${after[0]?.at} (${after[0].ms - refusals[0].ms} ms later)`,
    );

    // Nothing lost or doubled: one result per command, each list created once.
    expect(new Set(results.map((r) => r.sourceeventid))).toEqual(
      new Set(commands.map((c) => c.id)),
    );
    expect(results).toHaveLength(LISTS);
    const names = requests
      .filter((r) => r.status === 200)
      .map((r) => (r.body as { name: string }).name);
    expect(new Set(names).size).toBe(LISTS);
    expect(names).toHaveLength(LISTS);

    // What an operator sees: the shrink counted on the replica that met the 429.
    const shrinks = await Promise.all(
      replicas.all.map((r) =>
        metricOf(r, 'mailbridge_vendor_budget_shrinks_total', { endpoint: 'contacts' }),
      ),
    );
    expect(shrinks.reduce((a, b) => a + b, 0)).toBe(refusals.length);
  });
});
