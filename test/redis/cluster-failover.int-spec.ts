import { randomUUID } from 'node:crypto';
import { Partitioners, type Producer } from 'kafkajs';
import { auditActions, type ActionAudit } from '../../chaos/analysis/action-audit';
import { longestStall } from '../../chaos/analysis/stall';
import { vendorLedger } from '../../chaos/analysis/vendor-ledger';
import { actionKey, ResultCollector } from '../../chaos/observe/result-collector';
import { ChaosWorkload } from '../../chaos/traffic/chaos-workload';
import { groupLag, uniqueName, waitFor } from '../support/kafka-helpers';
import { RedisClusterGroup } from '../support/redis-cluster';
import { Replicas } from '../support/replicas';
import { PipelineFixture } from '../support/service-harness';

jest.setTimeout(300_000);

/** Events in: sign-ups and orders interleaved, at a steady rate (about 26 s of load). */
const SIGNUPS = 480;
const ORDERS = 40;
const RATE = 20;
/** Events published this long before the replica was cut off are published again afterwards. */
const REPUBLISH_BEFORE_CUT_MS = 1_000;

/**
 * Two replicas of the service on a Redis Cluster of three primaries and three replicas, under a
 * steady load, lose a primary: the one holding the most keys is killed with -9, its replica is
 * promoted, and the old node comes back as a replica of it. The replica is first cut off from
 * its primary (paused, its link closed) until the kill, as a lagging replica is, so that the
 * promoted node lacks the last writes the primary acknowledged: what `REDIS_WAIT_REPLICAS` is
 * for. The producer then publishes again what it sent around the cut, as a producer retrying
 * after a timeout would. Accounted as the chaos suite accounts a run (`chaos/analysis/`).
 */
describe('the service on a Redis Cluster losing a primary under load', () => {
  const password = `p-${randomUUID()}`;
  const fixture = new PipelineFixture();
  const workload = new ChaosWorkload(uniqueName('cluster-failover'), SIGNUPS, ORDERS);
  let group: RedisClusterGroup;
  let replicas: Replicas;
  let collector: ResultCollector;
  let producer: Producer;

  beforeAll(async () => {
    group = await RedisClusterGroup.start({ password, nodeTimeoutMs: 2_000 });
    await fixture.start();
    const t = fixture.topics;
    collector = await new ResultCollector(fixture.kafka, {
      results: [t.TOPIC_CAMPAIGN_SENT, t.TOPIC_CONTACT_LIST_CREATED, t.TOPIC_DISPATCH_FAILED],
      deadLetter: t.TOPIC_DEAD_LETTER,
    }).start();
    producer = fixture.kafka.producer({
      createPartitioner: Partitioners.DefaultPartitioner,
    });
    await producer.connect();
    replicas = new Replicas(fixture, {
      // The host is not used: the nodes are REDIS_CLUSTER_NODES.
      REDIS_URL: `redis://:${password}@cluster-managed`,
      REDIS_CLUSTER_NODES: group.addresses.join(','),
      CONTACT_LIST_WINDOW_MS: '3000',
      // The default claim TTL (120 s): a handling the failover cut short gives its claim to the
      // next one at once, so nothing here waits the TTL out.
      LOG_LEVEL: 'warn',
    });
  });

  afterAll(async () => {
    await replicas?.stopAll();
    await producer?.disconnect();
    await collector?.stop();
    await fixture.stop();
    group?.stop();
  });

  it('loses no send and no result, and sends nothing twice unmarked', async () => {
    try {
      await replicas.startReady(2);
    } catch (error) {
      replicas.printTails();
      throw error;
    }
    const expected = workload.expected();
    const publishedAt = new Map<number, number>();
    const publish = async (from: number, to: number) => {
      const at = new Date();
      const made = Array.from({ length: to - from }, (_, i) => workload.make(from + i, at));
      const topicOf = (kind: string) =>
        kind === 'order' ? fixture.topics.TOPIC_ORDER_PLACED : fixture.topics.TOPIC_USER_SIGNED_UP;
      await producer.sendBatch({
        acks: -1,
        topicMessages: made.map((r) => ({
          topic: topicOf(r.kind),
          messages: [{ key: r.key, value: r.value }],
        })),
      });
      for (let n = from; n < to; n++) publishedAt.set(n, at.getTime());
    };
    // The load, paced by the clock, in the background while the fault plays.
    const loadStart = Date.now();
    let made = 0;
    const load = (async () => {
      while (made < workload.total) {
        const due = Math.min(workload.total, Math.floor(((Date.now() - loadStart) * RATE) / 1000));
        if (due > made) await publish(made, due).then(() => (made = due));
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    const answered = () =>
      expected.filter((a) => collector.byAction.has(actionKey(a.eventId, a.template)));

    await waitFor(() => (answered().length >= expected.length / 4 ? true : undefined), {
      timeoutMs: 45_000,
      what: 'a quarter of the actions answered before the fault',
    }).catch((error: Error) => {
      replicas.printTails(150);
      process.stderr.write(
        `published ${made}, result records ${collector.records}, vendor requests ${fixture.sandbox.requests.length}\n`,
      );
      throw error;
    });
    const victim = await busiestPrimary(group);
    const replica = await replicaOf(group, victim);
    const offsetAtCut = await replicationOffset(group, victim);
    process.kill(group.pid(replica)!, 'SIGSTOP');
    const cutAt = Date.now();
    await group.ask(victim, 'CLIENT', 'KILL', 'TYPE', 'replica');
    // Writes the replica will not have: claims, marks and outcomes go on reaching the primary.
    await waitFor(
      async () =>
        (await replicationOffset(group, victim)) - offsetAtCut > 2_000 ||
        Date.now() - cutAt > 3_000 ||
        undefined,
      { timeoutMs: 30_000, what: 'writes the cut-off replica misses' },
    );
    const killedAt = Date.now();
    await group.kill(victim);
    process.kill(group.pid(replica)!, 'SIGCONT');
    await group.waitUntilHealthy();
    const promotedMs = Date.now() - killedAt;
    const roles = await group.roles();
    expect(roles.find((r) => r.port === replica)?.role).toBe('master');
    await group.revive(victim);
    await group.waitUntilHealthy();
    expect((await group.roles()).find((r) => r.port === victim)?.role).toBe('slave');

    await load;
    // A producer that timed out around the fault publishes its last events again.
    const again = [...publishedAt]
      .filter(([, at]) => at >= cutAt - REPUBLISH_BEFORE_CUT_MS && at <= killedAt)
      .map(([n]) => n);
    for (const n of again) await publish(n, n + 1);

    await waitFor(() => (answered().length === expected.length ? true : undefined), {
      timeoutMs: 120_000,
      what: 'every action answered',
    }).catch((error: Error) => {
      replicas.printTails(400);
      const missing = expected.filter(
        (a) => !collector.byAction.has(actionKey(a.eventId, a.template)),
      );
      process.stderr.write(
        `unanswered: ${missing
          .slice(0, 10)
          .map((a) => `${a.eventId} ${a.template}`)
          .join(', ')}\n`,
      );
      throw error;
    });
    const inputs = [fixture.topics.TOPIC_USER_SIGNED_UP, fixture.topics.TOPIC_ORDER_PLACED];
    const lagOf = async () =>
      (await Promise.all(inputs.map((t) => groupLag(fixture.kafka, fixture.groupId, t)))).reduce(
        (x, y) => x + y,
      );
    const lag = await waitFor(async () => ((await lagOf()) === 0 ? 0 : undefined), {
      timeoutMs: 60_000,
      what: 'the group to commit every input record',
    }).catch(() => lagOf());

    const audit: ActionAudit = auditActions(
      expected,
      collector.byAction,
      vendorLedger(fixture.sandbox.requests, [], Date.now()),
      'resend',
      Date.now(),
    );
    const times = [...collector.byAction.values()]
      .flatMap((records) => records.map((r) => r.ts))
      .sort((x, y) => x - y);
    const stall = longestStall(times, killedAt) ?? Number.NaN;
    const figures = {
      eventsIn: workload.total,
      republished: again.length,
      lostSends: audit.lostSends,
      lostResults: audit.lostResults,
      unexplainedDoubles: audit.doubles.unexplained,
      ambiguousDoubles: audit.doubles.ambiguous,
      markedAmbiguous: audit.markedAmbiguous,
      ambiguousWithoutMark: audit.ambiguousWithoutMark,
      failures: audit.failuresByCode,
      lag,
    };
    process.stderr.write(
      `[figures] cluster failover: ${JSON.stringify(figures)}; primary ${victim} killed ` +
        `${Math.round((killedAt - cutAt) / 100) / 10} s after its replica ${replica} was cut off, ` +
        `${replica} serving ${(promotedMs / 1000).toFixed(1)} s after the kill; longest stall ` +
        `${(stall / 1000).toFixed(1)} s; load ${Math.round((killedAt - loadStart) / 1000)} s in\n`,
    );
    if (audit.doubles.unexplained > 0) {
      process.stderr.write(`[figures] ${audit.examples.unexplainedDoubles.join('\n')}\n`);
    }
    expect({
      lostSends: audit.lostSends,
      lostResults: audit.lostResults,
      unexplainedDoubles: audit.doubles.unexplained,
      ambiguousWithoutMark: audit.ambiguousWithoutMark,
      lag,
    }).toEqual({
      lostSends: 0,
      lostResults: 0,
      unexplainedDoubles: 0,
      ambiguousWithoutMark: 0,
      lag: 0,
    });
  });
});

/** The primary holding the most keys now: the one whose loss costs the most. */
async function busiestPrimary(group: RedisClusterGroup): Promise<number> {
  const primaries = await group.primaryPorts();
  const sizes = await Promise.all(primaries.map((port) => group.dbsize(port)));
  return primaries[sizes.indexOf(Math.max(...sizes))];
}

/** The port of the replica of the primary on `primary` (CLUSTER NODES names its primary's id). */
async function replicaOf(group: RedisClusterGroup, primary: number): Promise<number> {
  const lines = String(await group.ask(primary, 'CLUSTER', 'NODES'))
    .trim()
    .split('\n');
  const fields = lines.map((line) => line.split(' '));
  const portOf = (address: string) => Number(address.split('@')[0].split(':').pop());
  const id = fields.find((f) => portOf(f[1]) === primary)?.[0];
  const replica = fields.find((f) => f[2].includes('slave') && f[3] === id);
  if (!replica) throw new Error(`no replica of ${primary}`);
  return portOf(replica[1]);
}

async function replicationOffset(group: RedisClusterGroup, port: number): Promise<number> {
  const info = String(await group.ask(port, 'INFO', 'replication'));
  return Number(/master_repl_offset:(\d+)/.exec(info)?.[1] ?? 0);
}
