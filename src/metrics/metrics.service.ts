import { Injectable } from '@nestjs/common';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** One partition's consumer lag, as the transport reports it at scrape time. */
export interface PartitionLag {
  topic: string;
  partition: number;
  lag: number;
}

/** What the Kafka transport exposes to the metrics, read at each scrape (nothing per record). */
export interface ConsumerGauges {
  /** Every partition this replica owns and has fetched from; revoked ones are not listed. */
  lag(): Iterable<PartitionLag>;
  inFlight(): { records: number; bytes: number };
  limits: { records: number; bytes: number };
}

/** The vendor gate as the metrics read it at scrape time. */
export interface GateReading {
  open: boolean;
  reason?: string;
}

/** Vendor endpoints, as labels: `relay` (campaign sends), `contacts` (contact lists). */
export type VendorEndpointLabel = 'relay' | 'contacts';

/**
 * Seconds, from a vendor answering at its quickest on a good day to one cut off at its 30 s body
 * timeout on a bad one.
 */
const VENDOR_SECONDS_BUCKETS = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30];
/** Records per fetched Kafka batch: kafkajs' fetches bring up to about a megabyte per partition. */
const BATCH_RECORDS_BUCKETS = [1, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000];
const GATE_CAUSES = ['auth', 'outage'] as const;

/**
 * The service's Prometheus metrics, served at GET /metrics. docs/operations.md's _Metrics_ section
 * lists every family; `test/deploy/monitoring.deploy-spec.ts` holds the dashboard and alert rules
 * to the names registered here.
 *
 * Cost on the hot path: prom-client hashes the label set on every `inc`/`observe` (building a
 * string each time), children from `labels()` included. Families counted per record (dead letters,
 * ignored fields) therefore count into a plain map and are handed to prom-client at scrape
 * time; gauges of the consumer and the gate are read at scrape time; the histograms are observed
 * once per vendor request or fetched batch, not per event.
 */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();
  private consumer?: ConsumerGauges;
  private gate?: () => GateReading;
  private logDrops?: () => number;
  private writesWithoutReplicas?: () => number;
  private readonly deadLetterCounts = new Map<string, number>();
  private readonly ignoredFieldCounts = new Map<string, number>();

  /** Terminal outcomes of (event, template) actions, and dead letters. */
  readonly outcomes = new Counter({
    name: 'mailbridge_outcomes_total',
    help: 'Terminal outcomes: sent, created, failed, duplicate (result re-published), dead_lettered',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  /** Dead-lettered records by the `errorCode` their dead letter carries. */
  readonly deadLetters = new Counter({
    name: 'mailbridge_dead_letters_total',
    help: 'Records dead-lettered, by error code (UNPARSEABLE, INVALID, UNKNOWN_TYPE, ...)',
    labelNames: ['code'] as const,
    registers: [this.registry],
    collect: () => {
      // A counter cannot be set: its series are rebuilt from the running totals at each scrape.
      this.deadLetters.reset();
      for (const [code, count] of this.deadLetterCounts) this.deadLetters.inc({ code }, count);
    },
  });

  /**
   * What the reader removed from accepted domain events, by event type only: unknown `data`
   * fields, and values of lenient fields that did not fit their rules (`@Lenient()`). Field
   * names are the producers' choice, never a label; the log names each path once.
   */
  readonly ignoredFields = new Counter({
    name: 'mailbridge_inbound_ignored_fields_total',
    help: 'Unknown data fields and lenient values that did not fit, ignored in accepted domain events (each path once per event), by event type',
    labelNames: ['type'] as const,
    registers: [this.registry],
    collect: () => {
      this.ignoredFields.reset();
      for (const [type, count] of this.ignoredFieldCounts) this.ignoredFields.inc({ type }, count);
    },
  });

  /**
   * Events that asked for a locale no copy of the template serves, so got the default copy, by
   * template and reason (`malformed`, `unknown`); the tag itself is never a label.
   */
  readonly localeFallbacks = new Counter({
    name: 'mailbridge_template_locale_fallbacks_total',
    help: 'Events given the default copy because their locale has none: by template and reason (malformed, unknown)',
    labelNames: ['template', 'reason'] as const,
    registers: [this.registry],
  });

  /**
   * Events that named a time zone not known here (or no zone at all, such as `+01:00`), so their
   * dates show in `TEMPLATE_TIME_ZONE`, by template; the zone itself is never a label.
   */
  readonly timeZoneFallbacks = new Counter({
    name: 'mailbridge_template_time_zone_fallbacks_total',
    help: 'Events whose time zone is not known here, so dates show in TEMPLATE_TIME_ZONE: by template',
    labelNames: ['template'] as const,
    registers: [this.registry],
  });

  /**
   * Sends whose fate was unknown: `takeover` when a vanished holder had marked the request as
   * about to be written and no outcome was recorded (the crash window), `lost-answer` when a
   * written request timed out or its connection was reset. `resolution` is what the policy made
   * of it: `resend` (a possible second email) or `fail` (an ambiguous failure result).
   */
  readonly ambiguousSends = new Counter({
    name: 'mailbridge_ambiguous_sends_total',
    help: 'Sends that may have reached the vendor without an answer, by cause and resolution',
    labelNames: ['cause', 'resolution'] as const,
    registers: [this.registry],
  });

  /** Actions sent again although an earlier attempt may have reached the vendor. */
  readonly possibleDuplicates = new Counter({
    name: 'mailbridge_possible_duplicate_sends_total',
    help: 'Actions sent again after an attempt whose fate is unknown (ambiguous, policy resend)',
    registers: [this.registry],
  });

  readonly recipientsPerRequest = new Histogram({
    name: 'mailbridge_campaign_recipients_per_request',
    help: 'Recipients carried by each campaign request sent',
    buckets: [1, 10, 50, 100, 250, 500, 1000, 2500],
    registers: [this.registry],
  });

  readonly vendorPauses = new Counter({
    name: 'mailbridge_vendor_pauses_total',
    help: 'Times consumption paused because the vendor refused keys or kept failing',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  /** Each HTTP attempt to the vendor, retries included, from dispatch to its answer read. */
  readonly vendorRequestSeconds = new Histogram({
    name: 'mailbridge_vendor_request_duration_seconds',
    help: 'Duration of each HTTP attempt to the vendor (retries each count), by endpoint (relay, contacts) and status (the HTTP status, or timeout/error when none came)',
    labelNames: ['endpoint', 'status'] as const,
    buckets: VENDOR_SECONDS_BUCKETS,
    registers: [this.registry],
  });

  readonly vendorRetries = new Counter({
    name: 'mailbridge_vendor_retries_total',
    help: 'Vendor attempts that failed and were tried again, by endpoint and reason (rate_limited, server_error, timeout, network, other)',
    labelNames: ['endpoint', 'reason'] as const,
    registers: [this.registry],
  });

  /** Requests that waited for their budget token (the pace all replicas share). */
  readonly vendorBudgetWaits = new Counter({
    name: 'mailbridge_vendor_budget_waits_total',
    help: 'Vendor requests that waited for a token of the shared request budget, by endpoint (relay, contacts)',
    labelNames: ['endpoint'] as const,
    registers: [this.registry],
  });

  readonly vendorBudgetWaitSeconds = new Counter({
    name: 'mailbridge_vendor_budget_wait_seconds_total',
    help: 'Seconds vendor requests spent waiting for a token of the shared request budget, by endpoint',
    labelNames: ['endpoint'] as const,
    registers: [this.registry],
  });

  readonly vendorBudgetShrinks = new Counter({
    name: 'mailbridge_vendor_budget_shrinks_total',
    help: 'Times a 429 with Retry-After held the shared request budget back for every replica, by endpoint',
    labelNames: ['endpoint'] as const,
    registers: [this.registry],
  });

  readonly vendorGateClosed = new Gauge({
    name: 'mailbridge_vendor_gate_closed',
    help: 'Whether the vendor gate is closed (1) or not (0) for each cause: auth (keys refused), outage (failures outlived the retries); consumption pauses while one is 1',
    labelNames: ['cause'] as const,
    registers: [this.registry],
    collect: () => {
      const state = this.gate?.();
      for (const cause of GATE_CAUSES) {
        this.vendorGateClosed.set(
          { cause },
          state && !state.open && state.reason === cause ? 1 : 0,
        );
      }
    },
  });

  readonly vendorGateCloses = new Counter({
    name: 'mailbridge_vendor_gate_closes_total',
    help: 'Times the vendor gate went from open to closed, by cause (auth, outage) and origin: self (this replica was refused or kept failing) or peer (another replica told it through Redis)',
    labelNames: ['cause', 'origin'] as const,
    registers: [this.registry],
  });

  readonly consumerLag = new Gauge({
    name: 'mailbridge_consumer_lag_records',
    help: "Per owned partition: its high watermark as of the last batch fetched, minus the offset after the last record that, with every earlier one, reached its outcome (the offset this replica commits next). Stale while fetching waits; a revoked partition's series is removed",
    labelNames: ['topic', 'partition'] as const,
    registers: [this.registry],
    collect: () => {
      this.consumerLag.reset();
      if (!this.consumer) return;
      for (const { topic, partition, lag } of this.consumer.lag()) {
        this.consumerLag.set({ topic, partition: String(partition) }, lag);
      }
    },
  });

  readonly logLinesDropped = new Counter({
    name: 'mailbridge_log_lines_dropped_total',
    help: 'Log lines dropped because stdout was not read as fast as they came (LOG_BUFFER_MAX_BYTES waited)',
    registers: [this.registry],
    collect: () => {
      this.logLinesDropped.reset();
      this.logLinesDropped.inc(this.logDrops?.() ?? 0);
    },
  });

  readonly redisWritesWithoutReplicas = new Counter({
    name: 'mailbridge_redis_writes_without_replicas_total',
    help: 'Sending marks, outcomes and contact-list writes that went on with fewer Redis replicas than REDIS_WAIT_REPLICAS (REDIS_REPLICA_SHORTFALL=proceed): a failover may lose them',
    registers: [this.registry],
    collect: () => {
      this.redisWritesWithoutReplicas.reset();
      this.redisWritesWithoutReplicas.inc(this.writesWithoutReplicas?.() ?? 0);
    },
  });

  readonly inFlightRecords = new Gauge({
    name: 'mailbridge_consumer_in_flight_records',
    help: 'Records fetched and not yet at their outcome, holding a place in the in-flight window',
    registers: [this.registry],
    collect: () => {
      this.inFlightRecords.set(this.consumer?.inFlight().records ?? 0);
    },
  });

  readonly inFlightBytes = new Gauge({
    name: 'mailbridge_consumer_in_flight_bytes',
    help: 'Bytes (keys and values) of the records holding a place in the in-flight window',
    registers: [this.registry],
    collect: () => {
      this.inFlightBytes.set(this.consumer?.inFlight().bytes ?? 0);
    },
  });

  readonly inFlightLimitRecords = new Gauge({
    name: 'mailbridge_consumer_in_flight_limit_records',
    help: 'The in-flight window limit in records (CONSUMER_MAX_IN_FLIGHT); fetching waits beyond it',
    registers: [this.registry],
    collect: () => {
      this.inFlightLimitRecords.set(this.consumer?.limits.records ?? 0);
    },
  });

  readonly inFlightLimitBytes = new Gauge({
    name: 'mailbridge_consumer_in_flight_limit_bytes',
    help: 'The in-flight window limit in bytes (CONSUMER_MAX_IN_FLIGHT_BYTES); fetching waits beyond it',
    registers: [this.registry],
    collect: () => {
      this.inFlightLimitBytes.set(this.consumer?.limits.bytes ?? 0);
    },
  });

  /**
   * Contact-list window lists not yet created and published, across every replica (read from the
   * shared window store), and the members they hold: what the next closes will create.
   */
  readonly windowListsOpen = new Gauge({
    name: 'mailbridge_contact_list_windows_open',
    help: 'Contact lists of windows not yet created and published (all replicas, from the window store)',
    registers: [this.registry],
  });

  readonly windowMembersOpen = new Gauge({
    name: 'mailbridge_contact_list_window_members',
    help: 'Members stored in contact-list windows whose lists are not yet created and published',
    registers: [this.registry],
  });

  /** Window lists this replica finished: `created` (results published) or `failed` (refused). */
  readonly windowListsClosed = new Counter({
    name: 'mailbridge_contact_list_windows_closed_total',
    help: 'Contact lists of windows this replica closed, by result: created, failed (the vendor refused it for good)',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });

  /**
   * Orders whose window had already been created when they came, by where they went
   * (`CONTACT_LIST_LATE_POLICY`): a follow-up list, or the window of the present.
   */
  readonly windowLateOrders = new Counter({
    name: 'mailbridge_contact_list_late_orders_total',
    help: 'Orders that came after their contact-list window was created, by policy: follow-up, next-window',
    labelNames: ['policy'] as const,
    registers: [this.registry],
  });

  /** Window lists this replica took over from an owner that stopped (its lease lapsed). */
  readonly windowTakeovers = new Counter({
    name: 'mailbridge_contact_list_window_takeovers_total',
    help: 'Contact lists of windows taken over from a replica that stopped while creating them',
    registers: [this.registry],
  });

  readonly batchRecords = new Histogram({
    name: 'mailbridge_consumer_batch_records',
    help: 'Records per batch fetched from Kafka (one partition each)',
    buckets: BATCH_RECORDS_BUCKETS,
    registers: [this.registry],
  });

  /** Counts one send of unknown fate, and a possible duplicate when the policy resends it. */
  ambiguousSend(cause: 'takeover' | 'lost-answer', resolution: 'resend' | 'fail'): void {
    this.ambiguousSends.inc({ cause, resolution });
    if (resolution === 'resend') this.possibleDuplicates.inc();
  }

  /** Counts one dead-lettered record: its code, and the outcome `dead_lettered`. */
  deadLettered(code: string): void {
    this.deadLetterCounts.set(code, (this.deadLetterCounts.get(code) ?? 0) + 1);
    this.outcomes.inc(DEAD_LETTERED);
  }

  /** Counts the `count` unknown fields ignored in one accepted event of `type`. */
  fieldsIgnored(type: string, count: number): void {
    this.ignoredFieldCounts.set(type, (this.ignoredFieldCounts.get(type) ?? 0) + count);
  }

  /** One HTTP attempt to the vendor ended after `seconds`, with `status` (or timeout/error). */
  vendorRequest(endpoint: VendorEndpointLabel, status: string, seconds: number): void {
    this.vendorRequestSeconds.observe({ endpoint, status }, seconds);
  }

  /** A failed attempt is about to be tried again. */
  vendorRetry(endpoint: VendorEndpointLabel, reason: string): void {
    this.vendorRetries.inc({ endpoint, reason });
  }

  /** A vendor request waited `seconds` for its budget token. */
  budgetWaited(endpoint: VendorEndpointLabel, seconds: number): void {
    this.vendorBudgetWaits.inc({ endpoint });
    this.vendorBudgetWaitSeconds.inc({ endpoint }, seconds);
  }

  /** A 429's `Retry-After` held the endpoint's budget back. */
  budgetShrunk(endpoint: VendorEndpointLabel): void {
    this.vendorBudgetShrinks.inc({ endpoint });
  }

  /** The logger's count of dropped lines, read at every scrape. */
  watchLogDrops(read: () => number): void {
    this.logDrops = read;
  }

  /** The Redis connection's count of writes that went on without their replicas, at every scrape. */
  watchRedisReplicas(read: () => number): void {
    this.writesWithoutReplicas = read;
  }

  /** The Kafka transport hands over what it knows; read at every scrape from then on. */
  watchConsumer(consumer: ConsumerGauges | undefined): void {
    this.consumer = consumer;
  }

  /** The vendor gate's state, read at every scrape. */
  watchGate(read: () => GateReading): void {
    this.gate = read;
  }

  constructor() {
    // Standard names (process_cpu_seconds_total, nodejs_heap_size_used_bytes, ...): the
    // dashboards everyone already has for Node services read them without a prefix.
    collectDefaultMetrics({ register: this.registry });
  }
}

/** Built once: the label set of every dead letter's outcome. */
const DEAD_LETTERED = { outcome: 'dead_lettered' } as const;
