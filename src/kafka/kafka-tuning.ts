/**
 * Kafka client tuning that is not worth a setting, in one place. Values that operators do tune
 * are settings instead: `KAFKA_SESSION_TIMEOUT_MS`, `CONSUMER_PARTITIONS_CONCURRENTLY`.
 */

/**
 * How often the consumer heartbeats, also from inside a batch while vendor calls are in flight.
 * kafkajs' default; a third of the smallest session timeout allowed, so one late heartbeat never
 * costs a member its partitions.
 */
export const HEARTBEAT_INTERVAL_MS = 3_000;

/**
 * Every client's retry of a failed request (connecting, metadata, commits): about 30 s in all
 * before the operation fails, long enough to ride out a broker restart or a leader election.
 */
export const CLIENT_RETRY = { retries: 8, initialRetryTime: 300, maxRetryTime: 10_000 } as const;

/** The longest the broker holds an empty fetch, and so the longest `consumer.stop()` waits for it. */
export const MAX_WAIT_TIME_MS = 1_000;

/**
 * How much one fetch brings: 128 KiB per partition, 1 MiB in all (kafkajs' defaults are 1 MiB and
 * 10 MiB). A record the transport holds keeps its whole fetch response alive (kafkajs decodes keys
 * and values as slices of it), and records fetched wait in memory until the in-flight window
 * admits them, so smaller fetches hold less heap per record in flight. The broker still returns a
 * first record batch larger than these, so no record is too large to fetch. On the benchmark's
 * backlog of sign-ups these drained no slower than kafkajs' defaults, at a lower peak RSS (the
 * figures are in the commit that set them).
 */
export const FETCH_MAX_BYTES_PER_PARTITION = 128 * 1024;
export const FETCH_MAX_BYTES = 1024 * 1024;

/**
 * Times the consumer retries a failing operation before it crashes and restarts: kafkajs' default.
 * The retry after that is the restart, from the last commit.
 */
export const CONSUMER_RETRIES = 5;

/**
 * Produce requests in flight per broker connection: 5 is the most the broker tracks for an
 * idempotent producer (its last 5 batches per partition), so a retried request is still
 * recognised and not written twice.
 */
export const PRODUCER_MAX_IN_FLIGHT_REQUESTS = 5;

/**
 * Unbounded retries are what idempotence needs; a broker outage then costs time, and the records
 * waiting on it stay uncommitted. 10 s caps the wait between two attempts, so that a broker that
 * comes back is used soon.
 */
export const PRODUCER_RETRY = { retries: Number.MAX_SAFE_INTEGER, maxRetryTime: 10_000 } as const;
