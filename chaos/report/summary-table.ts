import { SHUTDOWN_MARGIN_MS, slowestStop } from '../analysis/verdict';
import type { ChaosRunReport } from './chaos-report';

type Row = [figure: string, value: (run: ChaosRunReport) => string];

const clustered = (run: ChaosRunReport) => run.scenario !== undefined && run.scenario !== 'single';
const seconds = (ms: number | null | undefined) =>
  ms === null || ms === undefined ? 'n/a' : `${(ms / 1000).toFixed(1)} s`;

const n = (value: number | undefined | null) =>
  value === undefined || value === null ? 'n/a' : value.toLocaleString('en-US');
const pct = (value: number) => `${(value * 100).toFixed(1)} %`;

/**
 * What a `--cluster` run adds (issue 51): its scenario, every fault it injected, its broker kills
 * and Redis failovers with the longest stall of results after each. Shown only when a run of
 * the table is a cluster run, so the single-node report stays as it was.
 */
const CLUSTER_ROWS: Row[] = [
  ['scenario', (r) => r.scenario ?? 'single'],
  ['**faults injected**', (r) => faultsInjected(r)],
  [
    'kill -9 of a broker: node, when, revive begun after, revive took (planned)',
    (r) =>
      planned(
        (r.faults.brokerKills ?? []).map((k) =>
          k.error
            ? `failed: ${k.error}`
            : `node ${k.node} at ${seconds(k.atMs)}, ${seconds(k.downMs)}, ${seconds(k.reviveMs)}`,
        ),
        r.faults.brokerKillsPlanned,
      ),
  ],
  [
    'kill -9 of the Redis primary: killed → promoted, when, failover took (keys before → after)',
    (r) =>
      planned(
        (r.faults.redisFailovers ?? []).map((f) =>
          f.error
            ? `failed: ${f.error}`
            : `${f.killedPort} → ${f.promotedPort} at ${seconds(f.atMs)}, ${seconds(f.failoverMs)} (${f.keysBefore}→${f.keysAfter})`,
        ),
        r.faults.redisFailoversPlanned,
      ),
  ],
  [
    '**longest stall** (no new result, within 60 s of the broker kill / Redis failover)',
    (r) => {
      const stalls = [...(r.faults.brokerKills ?? []), ...(r.faults.redisFailovers ?? [])].map(
        (f) => f.stallMs,
      );
      return stalls.length === 0 ? 'n/a' : stalls.map(seconds).join('; ');
    },
  ],
];

/** What happened, one entry a fault, and how many were planned. */
function planned(happened: string[], plannedCount = 0): string {
  return `${happened.length === 0 ? 'none' : happened.join('; ')} (planned ${plannedCount})`;
}

/** Every fault the run injected, by kind: instance faults, broker and Redis ones. */
export function faultsInjected(r: ChaosRunReport): string {
  const f = r.faults;
  const kinds: Array<[string, number]> = [
    ['instance kill -9', f.kills],
    ['SIGTERM restart', f.sigtermRestarts ?? 0],
    ['SIGTERM under load', f.sigterms],
    ['third replica in/out', f.scaleUps + f.scaleDowns],
    ['broker restart', f.brokerRestarts.length],
    ['Redis restart', f.redisRestarts.length],
    ['broker kill -9', (f.brokerKills ?? []).length],
    ['Redis primary kill -9', (f.redisFailovers ?? []).length],
  ];
  const present = kinds.filter(([, count]) => count > 0);
  const total = present.reduce((sum, [, count]) => sum + count, 0);
  return `${total}: ${present.map(([kind, count]) => `${count} ${kind}`).join(', ')}`;
}

/** The figures issue 8 asks for, one row each, one column per policy run. */
const ROWS: Row[] = [
  [
    'round',
    (r) =>
      r.graceful ? 'graceful: SIGTERM restarts, no kill -9, strict verdict' : 'normal: kill -9',
  ],
  [
    'events (sign-ups + orders)',
    (r) => `${n(r.load.signups)} + ${n(r.load.orders)} at ${r.load.rate}/s`,
  ],
  [
    'input records (events missing / duplicated)',
    (r) =>
      `${n(r.load.inputRecords)} (${r.load.eventsMissingFromInput} / ${r.load.eventsDuplicatedInInput})`,
  ],
  ['kill -9 of an instance', (r) => `${r.faults.kills} (planned ${r.faults.killsPlanned})`],
  [
    'SIGTERM restart of an instance (graceful round)',
    (r) => `${r.faults.sigtermRestarts ?? 0} (planned ${r.faults.sigtermRestartsPlanned ?? 0})`,
  ],
  [
    'rebalances begun / completed (broker log); membership changes seen',
    (r) =>
      `${r.faults.rebalances.started} / ${r.faults.rebalances.stabilized}; ${r.faults.rebalances.membershipChanges}`,
  ],
  [
    'broker restarts (data kept)',
    (r) =>
      `${r.faults.brokerRestarts.filter((b) => !b.error).length} (planned ${r.faults.brokerRestartsPlanned})`,
  ],
  [
    'Redis restarts (keys before → after)',
    (r) =>
      [
        `${r.faults.redisRestarts.length}`,
        ...r.faults.redisRestarts.map((x) => `${x.keysBefore}→${x.keysAfter}`),
      ].join(' '),
  ],
  ['third replica joined / left', (r) => `${r.faults.scaleUps} / ${r.faults.scaleDowns}`],
  ['instances that exited by themselves', (r) => n(r.faults.crashes.length)],
  [
    'vendor fault rate during load',
    (r) =>
      `${pct(r.faults.sandbox.faultRateDuringLoad)} of ${n(r.faults.sandbox.receivedDuringLoad)}`,
  ],
  [
    'requests written but unanswered (reset / abandoned)',
    (r) => `${r.faults.sandbox.unanswered.reset} / ${r.faults.sandbox.unanswered.abandoned}`,
  ],
  [
    'accepted campaign requests / recipients',
    (r) => `${n(r.vendor.acceptedCampaignRequests)} / ${n(r.vendor.recipientsAccepted)}`,
  ],
  ['**lost sends**', (r) => n(r.audit.lostSends)],
  ['**lost results**', (r) => n(r.audit.lostResults)],
  ['**doubles: unexplained**', (r) => n(r.audit.doubles.unexplained)],
  ['doubles: ambiguous', (r) => n(r.audit.doubles.ambiguous)],
  ['extra vendor sends from doubles', (r) => n(r.audit.doubles.extraSends)],
  [
    '**contact lists created twice** (names / extra lists)',
    (r) =>
      `${r.vendor.listsCreatedTwice} / ${r.vendor.listExtraCreations} (of ${r.vendor.listNames} names)`,
  ],
  ['results marked ambiguous', (r) => n(r.audit.markedAmbiguous)],
  ['AMBIGUOUS_SEND results', (r) => n(r.audit.failuresByCode.AMBIGUOUS_SEND ?? 0)],
  [
    'ambiguous sends witnessed / without their mark',
    (r) => `${n(r.audit.witnessedAmbiguous)} / ${n(r.audit.ambiguousWithoutMark)}`,
  ],
  ['sent but reported failed (not ambiguous)', (r) => n(r.audit.sentButReportedFailed)],
  [
    'metric, last reading per process: ambiguous sends / possible duplicates',
    (r) => `${n(r.counters.ambiguousSends)} / ${n(r.counters.possibleDuplicateSends)}`,
  ],
  [
    'actions answered while the faults were on',
    (r) => `${n(r.audit.answeredUnderFaults)} of ${n(r.audit.actions)}`,
  ],
  ['actions with a result', (r) => `${n(r.audit.withResult)} of ${n(r.audit.actions)}`],
  [
    'failure results (by code)',
    (r) => `${n(r.audit.failures)} ${JSON.stringify(r.audit.failuresByCode)}`,
  ],
  ['repeated result records', (r) => n(r.audit.repeatedResultRecords)],
  ['conflicting results', (r) => n(r.audit.conflictingResults)],
  [
    'consumer-group lag at drain end / after stop',
    (r) => `${n(r.drain.lagAtDrainEnd)} / ${n(r.drain.lagAfterStop)}`,
  ],
  [
    'faults off → last result',
    (r) =>
      (r.drain.lastFaultToLastResultSeconds === null
        ? 'n/a'
        : `${r.drain.lastFaultToLastResultSeconds.toFixed(1)} s`) +
      (r.drain.complete ? '' : ' (drain incomplete)'),
  ],
  [
    'SIGTERM exits (ms, code)',
    (r) =>
      r.sigterms
        .map((t) => `${t.slot} ${t.reason}: ${t.exitMs} ms, ${t.exit}${t.withinBound ? '' : ' ✗'}`)
        .join('; '),
  ],
  [
    '**slowest SIGTERM stop** / bound',
    (r) => {
      const t = slowestStop(r);
      const slowest = t ? `${n(t.exitMs)} ms (${t.slot} ${t.reason}, exit ${t.exit})` : 'none';
      return `${slowest} / ${r.sigtermBoundMs === undefined ? 'n/a' : `${n(r.sigtermBoundMs)} ms`}`;
    },
  ],
  [
    'peak RSS per instance slot (MB)',
    (r) =>
      Object.entries(r.peakRssMb)
        .map(([s, mb]) => `${s} ${mb}`)
        .join(', '),
  ],
  [
    'instance starts per slot',
    (r) =>
      Object.entries(r.instanceStarts)
        .map(([s, k]) => `${s} ${k}`)
        .join(', '),
  ],
  ['run duration', (r) => `${r.durationSeconds} s`],
  ['verdict', (r) => (r.failures.length === 0 ? 'pass' : `FAIL (${r.failures.length})`)],
];

/** A Markdown table: figures down, runs across. */
export function summaryTable(runs: ChaosRunReport[], shutdownTimeoutMs: number): string {
  const column = (r: ChaosRunReport) =>
    `${clustered(r) ? `${r.scenario}, ` : ''}policy \`${r.policy}\`${r.graceful ? ', graceful' : ''}`;
  const header = `| figure | ${runs.map(column).join(' | ')} |`;
  const rule = `| --- | ${runs.map(() => '---').join(' | ')} |`;
  const rows = [...(runs.some(clustered) ? CLUSTER_ROWS : []), ...ROWS].map(
    ([figure, value]) => `| ${figure} | ${runs.map((r) => escape(value(r))).join(' | ')} |`,
  );
  // A graceful round leaves the stop no margin: it is what the round is about.
  const note = runs.some((r) => r.graceful)
    ? `SIGTERM bound (graceful round): SHUTDOWN_TIMEOUT_MS ${shutdownTimeoutMs} ms, exit 0 (✗ marks a breach).`
    : `SIGTERM bound: SHUTDOWN_TIMEOUT_MS ${shutdownTimeoutMs} + ${SHUTDOWN_MARGIN_MS} ms, exit 0 (✗ marks a breach).`;
  return [header, rule, ...rows, '', note].join('\n');
}

function escape(cell: string): string {
  return cell.replace(/\|/g, '\\|');
}
