import type { InboundEvent } from '../../src/contracts/inbound-contracts';

/** Configuration the harness hands a forked phase process (env BENCH_CHILD). */
export interface ConsumerChildConfig {
  brokers: string[];
  groupId: string;
  topics: string[];
  /** Where ceiling-consume-produce writes its results. */
  resultTopic?: string;
  partitions: number;
  /** Report `done` after this many records (absent: run until stopped). */
  expected?: number;
}

/** pipeline-floor: a consumer that also claims in Redis and sends to the vendor. */
export interface FloorChildConfig extends ConsumerChildConfig {
  /** Which templates' work it does: welcome for sign-ups; confirmation and window for orders. */
  workload: 'user' | 'order';
  /** The one event type its topic carries. */
  eventType: InboundEvent['type'];
  /** Where the campaign results go. */
  resultTopic: string;
  /** Where the contact lists' results go (orders). */
  contactListTopic: string;
  /** Vendor relay base URL, e.g. http://127.0.0.1:1234/relay/v1 */
  relayBaseUrl: string;
  token: string;
  /** Vendor API base URL (contact lists), e.g. http://127.0.0.1:1234/v1 */
  vendorBaseUrl: string;
  apiKey: string;
  redisUrl: string;
}

export interface HttpChildConfig {
  /** Vendor relay base URL, e.g. http://127.0.0.1:1234/relay/v1 */
  relayBaseUrl: string;
  token: string;
  seconds: number;
  connections: number;
  recipients: number;
}

export interface ConsumedReport {
  type: 'done';
  count: number;
  firstAt: number;
  lastAt: number;
}

export interface HttpReport {
  type: 'http-done';
  requests: number;
  ok: number;
  failed: number;
  elapsedMs: number;
  latencyMs: { p50: number | null; p99: number | null };
  bodyBytes: number;
  /** CPU the client spent in the measured loop only (user + system), from process.cpuUsage. */
  cpuMs: number;
}

export function childConfig<T>(): T {
  const raw = process.env.BENCH_CHILD;
  if (!raw) throw new Error('BENCH_CHILD is not set: this script is started by the bench');
  return JSON.parse(raw) as T;
}
