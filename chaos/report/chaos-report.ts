import type { ActionAudit } from '../analysis/action-audit';
import type { ChaosOptions, Policy, Scenario } from '../config/chaos-options';
import type { FaultLog } from '../faults/fault-runner';
import type { Termination } from '../service/instance-pool';

/** Everything one policy's run measured; written as JSON and read back by the Markdown report. */
/**
 * The longest time without a new result that began within a minute of a fault
 * (`analysis/stall.ts`); null when no result came after it.
 */
type Stall = { stallMs: number | null };

export interface ChaosRunReport {
  policy: Policy;
  /** Absent from reports written before `--cluster`: those are all `single`. */
  scenario?: Scenario;
  runId: string;
  /**
   * A graceful round (`--graceful`): SIGTERM restarts instead of kills, no broker or Redis
   * restarts unless asked, and a stricter verdict. Absent from reports written before it existed.
   */
  graceful?: boolean;
  /** What a SIGTERM stop may take: SHUTDOWN_TIMEOUT_MS, plus the margin outside a graceful round. */
  sigtermBoundMs?: number;
  startedAt: string;
  durationSeconds: number;
  load: {
    signups: number;
    orders: number;
    rate: number;
    produceSeconds: number;
    resentBatches: number;
    /** Records on the input topics at the end (more than the events if a batch was resent). */
    inputRecords: number;
    /** Events the producer sent that are not on the input topics: excluded from the audit. */
    eventsMissingFromInput: number;
    eventsDuplicatedInInput: number;
  };
  faults: Omit<FaultLog, 'timeline' | 'brokerKills' | 'redisFailovers'> & {
    /** A `--cluster` run's broker kills and Redis failovers (absent from older reports). */
    brokerKills?: Array<FaultLog['brokerKills'][number] & Stall>;
    redisFailovers?: Array<FaultLog['redisFailovers'][number] & Stall>;
    brokerKillsPlanned?: number;
    redisFailoversPlanned?: number;
    killsPlanned: number;
    /** A graceful round's kills, played as SIGTERM restarts. */
    sigtermRestartsPlanned: number;
    brokerRestartsPlanned: number;
    redisRestartsPlanned: number;
    rebalances: { started: number; stabilized: number; membershipChanges: number };
    crashes: Array<{ atMs: number; slot: string; exit: string }>;
    sandbox: {
      faultShareConfigured: number;
      faultRateDuringLoad: number;
      receivedDuringLoad: number;
      byFault: Record<string, number>;
      unanswered: { reset: number; abandoned: number };
    };
  };
  sigterms: Array<Termination & { atMs: number; withinBound: boolean }>;
  vendor: {
    received: number;
    recordComplete: boolean;
    acceptedCampaignRequests: number;
    acceptedListRequests: number;
    recipientsAccepted: number;
    listNames: number;
    listsCreatedTwice: number;
    listExtraCreations: number;
    listsCreatedTwiceExamples: string[];
    /** Accepted addresses no event of this run explains (must be 0). */
    foreignAddresses: number;
  };
  audit: ActionAudit;
  /** Sums of the last reading of each process; undefined when the build has no such counter. */
  counters: { ambiguousSends?: number; possibleDuplicateSends?: number };
  drain: {
    faultsOffAtMs: number;
    complete: boolean;
    /** From the faults being switched off to the last action's first result. */
    lastFaultToLastResultSeconds: number | null;
    lagAtDrainEnd: number;
    lagAfterStop: number;
    collectorCaughtUp: boolean;
    /** Times the harness's result consumer died (a broker restart) and was replaced. */
    collectorRestarts: number;
  };
  peakRssMb: Record<string, number>;
  instanceStarts: Record<string, number>;
  timeline: Array<{ atMs: number; what: string }>;
  failures: string[];
}

export interface ChaosReport {
  meta: {
    startedAt: string;
    finishedAt: string;
    durationSeconds: number;
    command: string;
    /** `git log -1 --format=%h -- src`, "+dirty" when src/ differs from it. */
    srcCommit: string;
    headCommit: string;
    machine: { cpus: number; cpuModel: string; memoryGiB: number; kernel: string; node: string };
    loadAverageAtStart: number;
    /** How the instances ran: the image's node flags and the NODE_OPTIONS they got. */
    runtime: { nodeFlags: string[]; nodeOptions: string };
    options: ChaosOptions;
  };
  runs: ChaosRunReport[];
}
