import type { Admin, Producer } from 'kafkajs';
import { Partitioners } from 'kafkajs';
import type { EmailCampaignSentV1 } from '../../src/contracts/email-campaign-sent.v1';
import type { CampaignRequest } from '../../src/email-api/vendor.types';
import { waitForLeaders } from '../../src/kafka/kafka.provider';
import { signUp } from '../support/events';
import { groupLag, uniqueName, waitFor, waitForCoordinator } from '../support/kafka-helpers';
import { KafkaCluster, javaStringHash } from '../support/kafka-cluster';
import { PipelineFixture } from '../support/service-harness';

jest.setTimeout(300_000);

/**
 * A three-node cluster (replication factor 3, min.insync.replicas 2) loses, to kill -9 under load,
 * the node that leads every partition of the sign-ups, every partition of the results and the
 * service's group coordinator; the node comes back later. Each email goes out once, each event
 * gets its result, and the group ends with no lag.
 */
describe('a three-node Kafka cluster loses the broker that leads the input, the results and the group', () => {
  const run = uniqueName('broker-loss');
  const events = Array.from({ length: 600 }, (_, i) => signUp(i, run));
  const [before, during] = [events.slice(0, 300), events.slice(300)];
  let cluster: KafkaCluster;
  let fixture: PipelineFixture;
  let admin: Admin;
  let producer: Producer;
  let victim: number;

  beforeAll(async () => {
    cluster = await KafkaCluster.start();
    const kafka = cluster.kafka();
    fixture = new PipelineFixture(kafka);
    admin = kafka.admin();
    await admin.connect();
    // Place leadership first: the input and result topics' preferred leader, first of every
    // replica list, is the node that coordinates the service's group.
    await waitForCoordinator(kafka, [fixture.groupId]);
    victim = await cluster.coordinatorOf(admin, fixture.groupId);
    const others = [1, 2, 3].filter((n) => n !== victim);
    const t = fixture.topics;
    await admin.createTopics({
      topics: [t.TOPIC_USER_SIGNED_UP, t.TOPIC_CAMPAIGN_SENT].map((topic) => ({
        topic,
        replicaAssignment: [0, 1, 2].map((partition) => ({
          partition,
          replicas: [victim, ...(partition % 2 ? [...others].reverse() : others)],
        })),
      })),
      waitForLeaders: false, // kafkajs' own wait gives up on a node whose metadata lags
    });
    await waitForLeaders(admin, [t.TOPIC_USER_SIGNED_UP, t.TOPIC_CAMPAIGN_SENT]);
    await fixture.start({ latencyMs: 20 });
    producer = kafka.producer({
      idempotent: true,
      createPartitioner: Partitioners.DefaultPartitioner,
      // The publisher keeps trying as a producer service would: its sign-ups go to the dead node
      // until the controllers fence it (9 s) and kafkajs refreshes its metadata, longer than its
      // default five retries (about 9 s in all) can last on a loaded machine.
      retry: { retries: 20, maxRetryTime: 3_000 },
    });
    await producer.connect();
  });

  afterAll(async () => {
    await producer?.disconnect().catch(() => undefined);
    await admin?.disconnect().catch(() => undefined);
    await fixture?.stop();
    await cluster?.destroy();
  });

  it('finds the coordinator as Kafka does: abs(groupId.hashCode) % partitions', () => {
    expect(javaStringHash('hello')).toBe(99162322);
    expect(javaStringHash('mailbridge.1234abcd')).toBe(1705453134); // hashCode -1705453134
    expect(javaStringHash('polygenelubricants')).toBe(0); // hashCode Integer.MIN_VALUE
  });

  it('sends each email once, publishes a result per event and ends with lag 0', async () => {
    const t = fixture.topics;
    const { topics } = await admin.fetchTopicMetadata({
      topics: [t.TOPIC_USER_SIGNED_UP, t.TOPIC_CAMPAIGN_SENT],
    });
    for (const topic of topics)
      expect(topic.partitions.map((p) => p.leader)).toEqual([victim, victim, victim]);

    const publish = (batch: typeof events) =>
      producer.send({
        topic: t.TOPIC_USER_SIGNED_UP,
        acks: -1,
        messages: batch.map((e) => ({ key: e.data.userId, value: JSON.stringify(e) })),
      });
    await publish(before);
    await fixture.startService({
      KAFKA_BROKERS: cluster.brokers.join(','),
      BATCH_MAX_RECIPIENTS: '20',
    });
    await waitFor(
      () => (fixture.collector.answered(t.TOPIC_CAMPAIGN_SENT).size >= 100 ? true : undefined),
      { timeoutMs: 90_000, what: 'the first 100 results' },
    );

    const pid = cluster.pid(victim);
    const killedAt = Date.now();
    await cluster.kill(victim);
    // More sign-ups while the node is down: the producer finds the new leaders.
    for (let i = 0; i < during.length; i += 50) await publish(during.slice(i, i + 50));
    await waitFor(
      () => (fixture.collector.answered(t.TOPIC_CAMPAIGN_SENT).size >= 450 ? true : undefined),
      { timeoutMs: 120_000, what: '450 results with a node down' },
    );
    await cluster.revive(victim);
    const revivedAt = Date.now();

    await waitFor(
      () =>
        fixture.collector.answered(t.TOPIC_CAMPAIGN_SENT).size >= events.length ? true : undefined,
      { timeoutMs: 120_000, what: 'a result for every sign-up' },
    );
    await waitFor(
      async () =>
        (await groupLag(fixture.kafka, fixture.groupId, t.TOPIC_USER_SIGNED_UP)) === 0
          ? true
          : undefined,
      { timeoutMs: 60_000, what: 'lag 0' },
    );

    // Each email once at the vendor: no send lost, none doubled (nothing here is ambiguous: the
    // vendor never failed).
    const accepted = fixture.sandbox.requests
      .filter((r) => r.status === 200)
      .flatMap((r) => (r.body as CampaignRequest).recipients.to.map((to) => to.email));
    expect(accepted.sort()).toEqual(events.map((e) => e.data.email).sort());
    const results = fixture.collector.results<EmailCampaignSentV1>(t.TOPIC_CAMPAIGN_SENT);
    expect(new Set(results.map((r) => r.sourceeventid))).toEqual(new Set(events.map((e) => e.id)));
    expect(fixture.collector.count(t.TOPIC_DISPATCH_FAILED)).toBe(0);
    expect(fixture.collector.count(t.TOPIC_DEAD_LETTER)).toBe(0);

    // The longest stretch without a result after the kill, from the results' own timestamps.
    const times = fixture.collector.messages
      .filter((m) => m.topic === t.TOPIC_CAMPAIGN_SENT)
      .map((m) => Number(m.timestamp))
      .filter((at) => at >= killedAt)
      .sort((a, b) => a - b);
    let stall = times.length > 0 ? times[0] - killedAt : 0;
    for (let i = 1; i < times.length; i++) stall = Math.max(stall, times[i] - times[i - 1]);
    process.stderr.write(
      `[figures] broker loss: ${events.length} sign-ups, node ${victim} of 3 killed (pid ${pid}), ` +
        `down ${((revivedAt - killedAt) / 1000).toFixed(1)} s; ${accepted.length} sends, ` +
        `${results.length - events.length} results published again, longest stall ${(stall / 1000).toFixed(1)} s, lag 0\n`,
    );
  });
});
