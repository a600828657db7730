import { slowestStop } from '../analysis/verdict';
import type { ChaosOptions, Scenario } from '../config/chaos-options';
import type { ChaosReport, ChaosRunReport } from './chaos-report';
import { summaryTable } from './summary-table';

/** The Markdown report: how the run was made, the figures, why it failed, and what happened when. */
export function markdownReport(report: ChaosReport): string {
  const { meta } = report;
  const o = meta.options;
  const lines = [
    `# mailbridge chaos run ${meta.startedAt.slice(0, 16).replace('T', ' ')}${o.graceful ? ' (graceful round)' : ''}`,
    '',
    `Command: \`${meta.command}\` (seed ${o.seed}); src at \`${meta.srcCommit}\`, HEAD \`${meta.headCommit}\`; ` +
      `${meta.durationSeconds} s in all.`,
    `Machine: ${meta.machine.cpus} × ${meta.machine.cpuModel}, ${meta.machine.memoryGiB} GiB, Linux ${meta.machine.kernel}, ` +
      `Node ${meta.machine.node}; load average ${meta.loadAverageAtStart.toFixed(2)} at the start.`,
    `Setup: ${o.cluster ? clusterSetup(o) : 'one broker (KRaft, restarted on its data dir), one Redis (append-only, fsync always)'}, the sandbox ` +
      `with every request recorded, 2 replicas plus a third that comes and goes, ${o.partitions} partitions; ` +
      `vendor faults on ${(o.faultShare * 100).toFixed(0)} % of requests during the load (503, 429 + Retry-After, resets, hangs).`,
    ...(o.graceful ? [gracefulRound(o)] : []),
    `Instances: \`node ${[...meta.runtime.nodeFlags, 'dist/main.js'].join(' ')}\` with ` +
      `\`NODE_OPTIONS="${meta.runtime.nodeOptions}"\` (the image's unless \`--service-env\` replaced it).`,
    'Reading the figures: the sandbox never acts on a request it hangs or resets, so a double can only come ' +
      'from a send the vendor accepted before its sender died or lost the answer; the fault rate is over the ' +
      'requests the vendor saw while the faults were on, which are few when the group spends that time rebalancing.',
    '',
    summaryTable(report.runs, o.shutdownTimeoutMs),
    '',
  ];
  for (const run of report.runs) lines.push(...runSection(run));
  return lines.join('\n') + '\n';
}

/** A `--cluster` run's infrastructure and the scenarios it ran, older reports having neither. */
export function clusterSetup(o: ChaosOptions): string {
  const sentinels =
    'a Redis primary with two replicas under three Sentinels (the service on REDIS_SENTINELS, ' +
    'REDIS_WAIT_REPLICAS 1 by default)';
  const described: Record<Exclude<Scenario, 'single'>, string> = {
    'broker-loss':
      `on ${sentinels}, ${o.brokerKills} kill -9 of the broker that coordinates the group and leads every ` +
      'input and result partition (placed so before the load), revived on its data 10-25 s later',
    'redis-failover':
      `on ${sentinels}, ${o.redisFailovers} kill -9 of the Redis primary, a replica promoted by Sentinel, ` +
      'the old node back as a replica 5-15 s later',
    'redis-cluster-failover':
      'on a Redis Cluster of three primaries and three replicas (REDIS_CLUSTER_NODES, REDIS_WAIT_REPLICAS 1 ' +
      `by default), ${o.redisFailovers} kill -9 of the primary holding the most keys, its replica promoted by ` +
      'the cluster, the old node back as a replica 5-15 s later',
  };
  const scenarios = o.scenarios.filter((s): s is Exclude<Scenario, 'single'> => s !== 'single');
  return (
    'three KRaft brokers (replication factor 3, min.insync.replicas 2); ' +
    scenarios.map((s) => `scenario ${s}: ${described[s]}; `).join('') +
    'each scenario with the instance faults as well'
  );
}

/** What a graceful round changed and how it is judged, for a reader who knows the normal one. */
function gracefulRound(o: ChaosOptions): string {
  return (
    `Round: **graceful**. Every instance change is a SIGTERM: ${o.kills} stops restarted 0-5 s after ` +
    `the process exited (where a normal round kills -9), third-replica cycles: ${o.scaleCycles}, and ` +
    `one stop under load; ${o.brokerRestarts} broker and ${o.redisRestarts} Redis restarts. ` +
    'Judged more strictly than a normal round: no contact list created twice under any policy, ' +
    `every SIGTERM exit 0 within SHUTDOWN_TIMEOUT_MS (${o.shutdownTimeoutMs} ms, no margin), ` +
    'consumer-group lag 0, every ambiguous send marked; doubles only as ambiguous ones, as ever.'
  );
}

function runSection(run: ChaosRunReport): string[] {
  const a = run.audit;
  const title =
    run.scenario && run.scenario !== 'single' ? `Scenario ${run.scenario}, policy` : 'Policy';
  const out = [`## ${title} \`${run.policy}\` (${run.runId})`, ''];
  out.push(run.failures.length === 0 ? 'Verdict: pass.' : 'Verdict: **fail**:');
  for (const failure of run.failures) out.push(`- ${failure}`);
  out.push('');
  const slowest = slowestStop(run);
  if (slowest && run.sigtermBoundMs !== undefined) {
    out.push(
      `Slowest SIGTERM stop: ${slowest.exitMs} ms (${slowest.slot}, ${slowest.reason}, exit ${slowest.exit}); ` +
        `bound ${run.sigtermBoundMs} ms${run.graceful ? ' (graceful round: SHUTDOWN_TIMEOUT_MS itself)' : ''}.`,
      '',
    );
  }
  const examples = [
    ...a.examples.lost.map((e) => `lost: ${e}`),
    ...a.examples.unexplainedDoubles.map((e) => `unexplained double: ${e}`),
    ...a.examples.ambiguousWithoutMark.map((e) => `ambiguous, unmarked: ${e}`),
    ...run.vendor.listsCreatedTwiceExamples.map((e) => `list created twice: ${e}`),
  ];
  if (examples.length > 0) out.push('Examples:', '', ...examples.map((e) => `- ${e}`), '');
  if (run.faults.crashes.length > 0) {
    out.push('Instances that exited by themselves (restarted after 1 s):', '');
    for (const c of run.faults.crashes) out.push(`- ${time(c.atMs)} ${c.slot}: ${c.exit}`);
    out.push('');
  }
  out.push('<details><summary>Timeline (seconds from the start of the load)</summary>', '');
  for (const t of run.timeline) out.push(`- ${time(t.atMs)} ${t.what}`);
  out.push(`- ${time(run.drain.faultsOffAtMs)} faults off, every replica up: drain`);
  out.push('', '</details>', '');
  return out;
}

function time(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
