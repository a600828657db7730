/**
 * The Kafka record headers of mailbridge's topics, declared once: the publisher, the consumer,
 * the redrive command and the AsyncAPI document all read their names here. A header's
 * `description` is what the AsyncAPI document says about it.
 */
export interface HeaderSpec {
  readonly name: string;
  readonly description: string;
  /**
   * How the value's bytes read: UTF-8 text, or a big-endian binary integer as Spring Kafka's
   * `DeadLetterPublishingRecoverer` writes partitions (4 bytes) and offsets and timestamps (8).
   */
  readonly encoding: 'utf8' | 'int32-big-endian' | 'int64-big-endian';
}

/** The record's media type (`content-type`), which picks the CloudEvents mode. */
export const CONTENT_TYPE_HEADER = 'content-type';
/** W3C Trace Context, propagated from an inbound event to its results and dead letters. */
export const TRACEPARENT_HEADER = 'traceparent';
/** A CloudEvents attribute `x` travels in binary mode as the header `ce_x`. */
export const CLOUDEVENTS_HEADER_PREFIX = 'ce_';
/**
 * A CloudEvents extension attribute's name: lower-case letters and digits, at most 20 (the
 * spec's "SHOULD NOT exceed 20" taken as a MUST); in binary mode the header `ce_<name>`.
 */
export const CLOUDEVENTS_EXTENSION_NAME = /^[a-z0-9]{1,20}$/;
/** The longest string value an inbound extension attribute may have. */
export const MAX_EXTENSION_LENGTH = 1000;
/** The value's media type in structured mode: the whole CloudEvent as JSON. */
export const CLOUDEVENTS_STRUCTURED_CONTENT_TYPE = 'application/cloudevents+json; charset=utf-8';
/** The value's media type of a binary-mode result: the CloudEvent's `data` as JSON. */
export const JSON_CONTENT_TYPE = 'application/json';

/**
 * The CloudEvents 1.0 attributes a result carries as `ce_` headers in binary mode (the default),
 * and in the value in structured mode. `sourceeventid` is mailbridge's extension attribute.
 */
export const RESULT_CLOUDEVENT_HEADERS = {
  specversion: {
    name: 'ce_specversion',
    description: 'CloudEvents version: always `1.0`.',
    encoding: 'utf8',
  },
  id: {
    name: 'ce_id',
    description:
      'The result id: deterministic (same source event and template, same id), so that a ' +
      'subscriber can deduplicate results of a redelivered event.',
    encoding: 'utf8',
  },
  source: {
    name: 'ce_source',
    description: 'This service, from the setting RESULT_EVENT_SOURCE (default `mailbridge`).',
    encoding: 'utf8',
  },
  type: {
    name: 'ce_type',
    description: 'The versioned result type, e.g. `email.campaign.sent.v1`.',
    encoding: 'utf8',
  },
  time: {
    name: 'ce_time',
    description: 'When the result was produced (RFC 3339).',
    encoding: 'utf8',
  },
  sourceeventid: {
    name: 'ce_sourceeventid',
    description: 'Extension attribute: the `id` of the inbound event this result answers.',
    encoding: 'utf8',
  },
} as const satisfies Record<string, HeaderSpec>;

/**
 * The CloudEvents 1.0 attributes an inbound event may carry as `ce_` headers in binary mode.
 * `id`, `source`, `type` and `specversion` are required there; `time` is required by mailbridge.
 * Other `ce_` headers are extension attributes and are kept.
 */
export const INBOUND_CLOUDEVENT_HEADERS = {
  specversion: { name: 'ce_specversion', description: 'Must be `1.0`.', encoding: 'utf8' },
  id: {
    name: 'ce_id',
    description: 'Unique per event: the idempotency key and every result’s `sourceeventid`.',
    encoding: 'utf8',
  },
  source: {
    name: 'ce_source',
    description: 'Who produced the event (a URI-reference).',
    encoding: 'utf8',
  },
  type: {
    name: 'ce_type',
    description: 'The versioned event type, e.g. `user.signed_up.v1`.',
    encoding: 'utf8',
  },
  time: { name: 'ce_time', description: 'When the event happened (RFC 3339).', encoding: 'utf8' },
  datacontenttype: {
    name: 'ce_datacontenttype',
    description: 'Optional; the `content-type` header is the value’s media type in binary mode.',
    encoding: 'utf8',
  },
  dataschema: { name: 'ce_dataschema', description: 'Optional (a URI).', encoding: 'utf8' },
  subject: { name: 'ce_subject', description: 'Optional.', encoding: 'utf8' },
} as const satisfies Record<string, HeaderSpec>;

/**
 * The headers a dead letter adds to the original record's key, value and headers, under the
 * names Spring Kafka's `DeadLetterPublishingRecoverer` uses (`kafka_dlt-*`, with its encodings),
 * and mailbridge's own beside them (`mailbridge_dlt-*`).
 */
export const DEAD_LETTER_HEADERS = {
  originalTopic: {
    name: 'kafka_dlt-original-topic',
    description: 'The topic the record was consumed from.',
    encoding: 'utf8',
  },
  originalPartition: {
    name: 'kafka_dlt-original-partition',
    description: 'Its partition.',
    encoding: 'int32-big-endian',
  },
  originalOffset: {
    name: 'kafka_dlt-original-offset',
    description: 'Its offset.',
    encoding: 'int64-big-endian',
  },
  originalTimestamp: {
    name: 'kafka_dlt-original-timestamp',
    description: 'Its timestamp (milliseconds since the epoch).',
    encoding: 'int64-big-endian',
  },
  originalTimestampType: {
    name: 'kafka_dlt-original-timestamp-type',
    description: '`CreateTime` or `LogAppendTime`.',
    encoding: 'utf8',
  },
  originalConsumerGroup: {
    name: 'kafka_dlt-original-consumer-group',
    description: 'The consumer group of the mailbridge replicas that dead-lettered it.',
    encoding: 'utf8',
  },
  exceptionFqcn: {
    name: 'kafka_dlt-exception-fqcn',
    description:
      'The kind of failure, as a stable class-like name `mailbridge.<error class>.<code>`, e.g. ' +
      '`mailbridge.InvalidEventError.UNKNOWN_TYPE`.',
    encoding: 'utf8',
  },
  exceptionMessage: {
    name: 'kafka_dlt-exception-message',
    description: 'What was wrong: names fields and rules, never values or personal data.',
    encoding: 'utf8',
  },
  errorCode: {
    name: 'mailbridge_dlt-error-code',
    description:
      'Why, as a stable code (`UNPARSEABLE`, `INVALID`, `UNKNOWN_TYPE`, …; docs/events.md lists them).',
    encoding: 'utf8',
  },
  valueReplaced: {
    name: 'mailbridge_dlt-value-replaced',
    description:
      'Present (`reference`) when the original value did not fit the dead-letter topic: the ' +
      'value is then a JSON reference to the original (topic, partition, offset, size, SHA-256).',
    encoding: 'utf8',
  },
  headersDropped: {
    name: 'mailbridge_dlt-headers-dropped',
    description: 'Present (`true`) when the original headers were left out to fit.',
    encoding: 'utf8',
  },
  keyDropped: {
    name: 'mailbridge_dlt-key-dropped',
    description: 'Present (`true`) when the original key was left out to fit.',
    encoding: 'utf8',
  },
} as const satisfies Record<string, HeaderSpec>;

export type DeadLetterHeader = keyof typeof DEAD_LETTER_HEADERS;

/** The dead-letter headers every dead letter carries; the others appear when they apply. */
export const REQUIRED_DEAD_LETTER_HEADERS: readonly DeadLetterHeader[] = [
  'originalTopic',
  'originalPartition',
  'originalOffset',
  'originalTimestamp',
  'originalTimestampType',
  'originalConsumerGroup',
  'exceptionFqcn',
  'exceptionMessage',
  'errorCode',
];
