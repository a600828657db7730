import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { SandboxServer } from '../src/sandbox/sandbox.server';
import { RedisClusterGroup } from '../test/support/redis-cluster';
import { API_KEY, RELAY_KEY, serviceEnv, uniqueTopics } from '../test/support/service-harness';
import { BENCH_KAFKA_PORT, startBroker } from './infra/broker';
import { howEnded, startNode, stopChild, type StartedChild } from './infra/child-process';
import { repoRoot } from './infra/repo-root';
import { benchKafka, createTopics, sleep, topicSize } from './infra/bench-kafka';
import { numberFlag } from './config/number-flag';
import { preload } from './workloads/preload';
import { userSignedUp } from './workloads/event-factory';

/**
 * `npm run bench:cluster`: how the service's Redis keys and calls spread over the primaries of
 * a Redis Cluster. It starts three primaries and three replicas of the machine's `redis-server`
 * on free loopback ports (`test/support/redis-cluster.ts`), a broker (or uses `KAFKA_BROKERS`)
 * and the vendor sandbox, preloads `--signups` sign-ups (default 100,000), runs the service
 * (`dist/main.js`, its log in `.cache/bench-logs/cluster-spread.log`) on the cluster
 * (`REDIS_CLUSTER_NODES` naming one node) until every sign-up has
 * its result, and prints per primary: its slots, the keys it holds (`DBSIZE`), the script calls
 * it ran (`INFO commandstats`: `evalsha` and `eval`, the service's claims, marks and outcomes),
 * its `hmget` calls (the suppression list's read, one per campaign request, on the primary that
 * holds the list; the window metrics' read of their counts, one a second, on the windows'
 * primary) and every command it ran, those scripts ran included
 * (`total_commands_processed`). Every process it started is stopped by its PID at the end. It
 * asserts nothing.
 */
async function main(): Promise<void> {
  const signups = numberFlag('signups', 100_000);
  const kafkaPort = String(numberFlag('kafka-port', Number(BENCH_KAFKA_PORT)));
  const load = loadavg()[0];
  const broker = await startBroker(process.env.KAFKA_BROKERS, kafkaPort);
  const group = await RedisClusterGroup.start();
  const sandbox = new SandboxServer({ relayAccessToken: RELAY_KEY, apiKey: API_KEY });
  const kafka = benchKafka(broker.brokers);
  const admin = kafka.admin();
  let service: StartedChild | undefined;
  try {
    await sandbox.listen(0);
    await admin.connect();
    const topics = uniqueTopics();
    await createTopics(admin, Object.values(topics), 3);
    await preload(kafka, topics.TOPIC_USER_SIGNED_UP, signups, (n, at) => userSignedUp(n, at));
    const primaries = await group.primaryPorts();
    await group.resetStats();

    const started = Date.now();
    // The tests' environment reads its broker from here; this run's broker is the one to use.
    process.env.KAFKA_BROKERS = broker.brokers.join(',');
    const env = serviceEnv(sandbox.url, topics, `cluster-spread-${started}`, {
      REDIS_URL: 'redis://cluster-managed',
      REDIS_CLUSTER_NODES: group.addresses[0],
    });
    service = startNode('cluster-spread', join(repoRoot(), 'dist/main.js'), env);
    while ((await topicSize(admin, topics.TOPIC_CAMPAIGN_SENT)) < signups) {
      const ended = howEnded(service);
      if (ended !== undefined) throw new Error(`the service ended (${ended}): ${service.logFile}`);
      await sleep(500);
    }
    const seconds = (Date.now() - started) / 1000;

    const rows = [];
    for (const port of primaries) rows.push(await primaryFigures(group, port));
    console.log(
      '| primary | slots | keys | share of keys | script calls | hmget calls | commands run |',
    );
    console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
    const keys = rows.reduce((sum, r) => sum + r.keys, 0);
    for (const r of rows) {
      console.log(
        `| ${r.port} | ${r.slots.toLocaleString('en')} | ${r.keys.toLocaleString('en')} | ` +
          `${((100 * r.keys) / keys).toFixed(1)} % | ${r.scripts.toLocaleString('en')} | ` +
          `${r.hmget.toLocaleString('en')} | ${r.commands.toLocaleString('en')} |`,
      );
    }
    const requests = sandbox.requests.filter((r) => r.status === 200).length;
    console.log(
      `\n${signups.toLocaleString('en')} sign-ups answered in ${seconds.toFixed(1)} s ` +
        `(${requests} campaign requests); ${cpus().length} × ${cpus()[0]?.model.trim()}, ` +
        `load average ${load.toFixed(2)} at the start.`,
    );
  } finally {
    if (service) await stopChild(service, 30_000);
    await admin.disconnect();
    await sandbox.close();
    group.stop();
    if (broker.owned) await broker.stop();
  }
}

/** What one primary holds and ran since the stats were reset. */
async function primaryFigures(group: RedisClusterGroup, port: number) {
  const roles = await group.roles();
  const slots = (roles.find((r) => r.port === port)?.slots ?? []).reduce((sum, range) => {
    const [from, to = from] = range.split('-').map(Number);
    return sum + to - from + 1;
  }, 0);
  const stats = String(await group.ask(port, 'INFO', 'commandstats'));
  const calls = (command: string) =>
    Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(stats)?.[1] ?? 0);
  return {
    port,
    slots,
    keys: await group.dbsize(port),
    scripts: calls('evalsha') + calls('eval'),
    hmget: calls('hmget'),
    commands: await group.commandsProcessed(port),
  };
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
