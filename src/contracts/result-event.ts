import { hash } from 'node:crypto';

/**
 * How results go on Kafka, per the CloudEvents Kafka protocol binding: `binary` puts the
 * attributes in `ce_` headers and `data` alone in the value; `structured` puts the whole event,
 * as JSON, in the value (`content-type: application/cloudevents+json`).
 */
export const RESULT_EVENT_MODES = ['binary', 'structured'] as const;
export type ResultEventMode = (typeof RESULT_EVENT_MODES)[number];

/** The `source` of every result unless `RESULT_EVENT_SOURCE` names another. */
export const DEFAULT_RESULT_SOURCE = 'mailbridge';

/**
 * Every event mailbridge publishes: a CloudEvents 1.0 event, the source event's id in the
 * `sourceeventid` extension attribute. This is the structured-mode value exactly; binary mode
 * carries the same attributes as `ce_` headers.
 */
export interface ResultEvent<Type extends string, Data> {
  specversion: '1.0';
  /** Deterministic: the same source event and template always give the same id. */
  id: string;
  /** This service (`RESULT_EVENT_SOURCE`). */
  source: string;
  type: Type;
  /** When the result was published (RFC 3339, UTC). */
  time: string;
  datacontenttype: 'application/json';
  /** The id of the source event this result answers. */
  sourceeventid: string;
  data: Data;
}

/** A deterministic result id, so subscribers can deduplicate results of a redelivered event. */
export function resultEventId(resultType: string, sourceEventId: string, template: string): string {
  // One-shot `hash`: the same digest as createHash's, without a Hash object per result.
  return hash('sha256', `${resultType}\u0000${sourceEventId}\u0000${template}`, 'hex').slice(0, 32);
}
