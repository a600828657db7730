import { pino } from 'pino';
import type { ConsumedReport, FloorChildConfig } from '../../bench/phases/child-messages';
import { startFloor, type RunningFloor } from '../../bench/phases/pipeline-floor';
import {
  ORDER_PLACED,
  orderPlaced,
  USER_SIGNED_UP,
  userSignedUp,
} from '../../bench/workloads/event-factory';
import { CONTACTS_PATHS } from '../../src/sandbox/sandbox-options';
import { SandboxServer } from '../../src/sandbox/sandbox.server';
import {
  createTopics,
  produce,
  testBrokers,
  testKafka,
  TopicCollector,
  uniqueName,
  waitFor,
} from '../support/kafka-helpers';
import { API_KEY, RELAY_KEY } from '../support/service-harness';

// The benchmark reads mailbridge against `pipeline-floor` (docs/benchmark.md): the floor must do
// the work it claims, every event's, or the ratio measures a floor that skips some of it. Run
// here on the real broker, Redis and the vendor's stand-in, as the benchmark runs it.
describe('pipeline-floor, the benchmark measure of the work alone', () => {
  const kafka = testKafka();
  const EVENTS = 60;
  let sandbox: SandboxServer;
  let collector: TopicCollector | undefined;
  let floor: RunningFloor | undefined;

  beforeEach(async () => {
    sandbox = new SandboxServer({ relayAccessToken: RELAY_KEY, apiKey: API_KEY });
    await sandbox.listen(0);
  });

  afterEach(async () => {
    await floor?.stop();
    await collector?.stop();
    await sandbox.close();
    floor = undefined;
    collector = undefined;
  }, 30_000); // the floor's consumer leaves once its fetch (up to 5 s) returns

  async function run(workload: 'user' | 'order', events: Array<{ key: string; value: string }>) {
    const [input, sent, lists, groupId] = ['in', 'sent', 'lists', 'group'].map((n) =>
      uniqueName(`floor-${n}`),
    );
    await createTopics(kafka, [input, sent, lists], 3, [groupId]);
    await produce(kafka, input, events);
    collector = await new TopicCollector(kafka).start([sent, lists]);
    const config: FloorChildConfig = {
      brokers: testBrokers(),
      groupId,
      topics: [input],
      workload,
      eventType: workload === 'user' ? USER_SIGNED_UP : ORDER_PLACED,
      resultTopic: sent,
      contactListTopic: lists,
      partitions: 3,
      expected: events.length,
      relayBaseUrl: `${sandbox.url}/relay/v1`,
      token: RELAY_KEY,
      vendorBaseUrl: `${sandbox.url}/v1`,
      apiKey: API_KEY,
      redisUrl: 'redis://127.0.0.1:6379',
    };
    let failure: unknown;
    const done = new Promise<ConsumedReport>((resolve) => {
      void startFloor(config, {
        done: resolve,
        failed: (error) => (failure = error),
        log: pino.destination('/dev/null'),
      }).then((started) => (floor = started));
    });
    const report = await done;
    return { report, sent, lists, failure: () => failure };
  }

  const dataOf = (topic: string) => collector!.json<{ listId?: string }>(topic);

  it('sends every sign-up its welcome and publishes one result for each', async () => {
    const events = Array.from({ length: EVENTS }, (_, n) => userSignedUp(n));
    const { report, sent } = await run('user', events);

    expect(report.count).toBe(EVENTS);
    await waitFor(() => (collector!.count(sent) >= EVENTS ? true : undefined), {
      what: 'the welcome results',
    });
    expect(sandbox.stats.recipientsAccepted).toBe(EVENTS);
    expect(sandbox.stats.contactListsAccepted).toBe(0);
    const ids = collector!.messages
      .filter((m) => m.topic === sent)
      .map((m) => m.headers?.ce_sourceeventid?.toString());
    expect(new Set(ids)).toEqual(new Set(events.map((e) => e.id)));
  }, 60_000);

  it("sends every order its confirmation, lists its customer in the order's window, and publishes both results", async () => {
    // Placed a minute ago: the window has ended, so its list is due a linger after the orders.
    const placed = new Date(Date.now() - 60_000);
    const events = Array.from({ length: EVENTS }, (_, n) => orderPlaced(n, placed));
    const { report, sent, lists, failure } = await run('order', events);

    expect(report.count).toBe(EVENTS);
    await waitFor(() => (collector!.count(lists) >= EVENTS ? true : undefined), {
      what: 'the contact lists’ results',
    });
    expect(failure()).toBeUndefined();
    expect(collector!.count(sent)).toBe(EVENTS);
    expect(sandbox.stats.recipientsAccepted).toBe(EVENTS);
    // One window (or two, if the minute-old placedAt straddles a window's end), every customer
    // in one list of it, each list created once.
    const created = sandbox.requests.filter((r) => CONTACTS_PATHS.has(r.path));
    const members = created.flatMap((r) => (r.body as { members: unknown[] }).members);
    expect(members).toHaveLength(EVENTS);
    expect(created.length).toBeLessThanOrEqual(2);
    const listIds = new Set(dataOf(lists).map((d) => d.listId));
    expect(listIds).toEqual(new Set(created.map((r) => (r.response as { id: string }).id)));
  }, 60_000);
});
