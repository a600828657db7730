import type { ImageRuntime } from '../../bench/infra/image-runtime';
import type { ChaosOptions, Policy } from '../config/chaos-options';

/** The topics of one run, named after it, so runs never read each other's records. */
export function runTopics(runId: string) {
  return {
    TOPIC_USER_SIGNED_UP: `${runId}.user.signed_up.v1`,
    TOPIC_ORDER_PLACED: `${runId}.order.placed.v1`,
    TOPIC_CAMPAIGN_REQUESTED: `${runId}.email.campaign.requested.v1`,
    TOPIC_CONTACT_LIST_REQUESTED: `${runId}.email.contact_list.requested.v1`,
    TOPIC_SUPPRESSION_REQUESTED: `${runId}.email.suppression.requested.v1`,
    TOPIC_CAMPAIGN_SENT: `${runId}.email.campaign.sent.v1`,
    TOPIC_CONTACT_LIST_CREATED: `${runId}.email.contact_list.created.v1`,
    TOPIC_DISPATCH_FAILED: `${runId}.email.dispatch.failed.v1`,
    TOPIC_DEAD_LETTER: `${runId}.mailbridge.dead-letter.v1`,
    TOPIC_UNSUBSCRIBED: `${runId}.email.unsubscribed.v1`,
  };
}

export type RunTopics = ReturnType<typeof runTopics>;

export interface ServiceWiring {
  runId: string;
  policy: Policy;
  topics: RunTopics;
  brokers: string[];
  /** How the instance finds Redis: `REDIS_URL`, or the Sentinels and passwords of a cluster run. */
  redis: Record<string, string>;
  vendorUrl: string;
  relayAccessToken: string;
  apiKey: string;
}

/**
 * The environment of one instance: production mode (nothing filled in for it), the run's
 * broker, Redis and topics, one group for all replicas, vendor timeouts short enough that a
 * hung request ends in seconds, and warnings only in the logs. The heap limits are the image's
 * (`NODE_OPTIONS` of the Dockerfile), so that the faults meet the heap the service ships with;
 * `--service-env NODE_OPTIONS=…` replaces them. `CONSUMER_START_FROM` and
 * `AMBIGUOUS_SEND_POLICY` are part of the contract of issue 8; a build that predates them
 * ignores them.
 */
export function serviceEnv(
  wiring: ServiceWiring,
  options: Pick<ChaosOptions, 'shutdownTimeoutMs' | 'partitions' | 'serviceEnv'>,
  runtime: Pick<ImageRuntime, 'nodeOptions'>,
): (slot: string, port: number) => Record<string, string> {
  return (slot, port) => ({
    NODE_OPTIONS: runtime.nodeOptions,
    MAILBRIDGE_MODE: 'production',
    LOG_LEVEL: 'warn',
    HTTP_PORT: String(port),
    KAFKA_BROKERS: wiring.brokers.join(','),
    KAFKA_CLIENT_ID: `mailbridge-${slot}`,
    KAFKA_GROUP_ID: wiring.runId,
    KAFKA_CREATE_TOPICS: 'false', // created up front by the harness
    KAFKA_TOPIC_PARTITIONS: String(options.partitions),
    ...wiring.topics,
    VENDOR_RELAY_BASE_URL: `${wiring.vendorUrl}/relay/v1`,
    VENDOR_BASE_URL: `${wiring.vendorUrl}/v1`,
    VENDOR_RELAY_ACCESS_TOKEN: wiring.relayAccessToken,
    VENDOR_API_KEY: wiring.apiKey,
    SUPPRESSION_HASH_KEY: 'suppression-hash-key-for-tests-only-32',
    VENDOR_CONNECT_TIMEOUT_MS: '2000',
    VENDOR_HEADERS_TIMEOUT_MS: '2000',
    VENDOR_BODY_TIMEOUT_MS: '2000',
    VENDOR_RETRY_CAP_MS: '5000',
    SENDER_FROM_EMAIL: 'hello@chaos.example.com',
    SENDER_FROM_NAME: 'Chaos Shop',
    IDEMPOTENCY_STORE: 'redis',
    ...wiring.redis,
    IDEMPOTENCY_KEY_PREFIX: `mailbridge:${wiring.runId}:`,
    CONSUMER_START_FROM: 'earliest',
    AMBIGUOUS_SEND_POLICY: wiring.policy,
    SHUTDOWN_TIMEOUT_MS: String(options.shutdownTimeoutMs),
    ...options.serviceEnv,
  });
}
