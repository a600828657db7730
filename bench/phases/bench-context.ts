import type { Admin, Kafka } from 'kafkajs';
import type { BenchOptions, PhaseName } from '../config/bench-options';
import type { HostCpu } from '../measure/host-cpu';
import type { VendorHandle } from '../vendor/vendor.handle';

/** Everything a phase needs from the run it belongs to. */
export interface BenchContext {
  options: BenchOptions;
  kafka: Kafka;
  admin: Admin;
  brokers: string[];
  vendor: VendorHandle;
  /** The host's CPU counters: the machine, the broker, Redis, the vendor host, the harness. */
  hostCpu: HostCpu;
  runId: string;
  /** A topic that stays empty: what a service subscribes to for the workload not under test. */
  emptyTopic: string;
  /** Does this build of mailbridge consume `order.placed.v1` (TOPIC_ORDER_PLACED)? */
  orderSupported: boolean;
  log(message: string): void;
}

export type WorkloadName = 'user' | 'order';

/** Where a phase run reads its input from. */
export interface InputTopics {
  user: string;
  order: string;
}

/** Where a phase run writes its outcomes; fresh topics per run so that counts are exact. */
export interface ResultTopics {
  sent: string;
  failed: string;
  deadLetter: string;
  contactList: string;
}

export function resultTopics(ctx: BenchContext, runName: string): ResultTopics {
  const base = `${ctx.runId}.${runName}`;
  return {
    sent: `${base}.sent`,
    failed: `${base}.failed`,
    deadLetter: `${base}.dlq`,
    contactList: `${base}.contact-list`,
  };
}

export function allResultTopics(topics: ResultTopics): string[] {
  return [topics.sent, topics.failed, topics.deadLetter, topics.contactList];
}

/** A phase that runs as a consumer of the preloaded events. */
export type EventPhase = Exclude<PhaseName, 'ceiling-http'>;
