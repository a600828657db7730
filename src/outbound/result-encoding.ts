import { CloudEvent, Kafka } from 'cloudevents';
import { CONTENT_TYPE_HEADER, RESULT_CLOUDEVENT_HEADERS as CE } from '../contracts/kafka-headers';
import type { ResultEventMode } from '../contracts/result-event';
import type { EmailUnsubscribedV1 } from '../contracts/email-unsubscribed.v1';
import type { ResultEventOf } from './result.factory';

/** A result as a Kafka record's value and headers, in one CloudEvents content mode. */
export interface EncodedResult {
  value: string;
  headers: Record<string, string>;
}

/**
 * Encodes a result per the CloudEvents Kafka protocol binding. Binary mode: every attribute but
 * `data` and `datacontenttype` becomes a `ce_` header, `datacontenttype` becomes `content-type`,
 * and the value is `data` as JSON. Structured mode: the CloudEvents SDK writes the whole event as
 * JSON with `content-type: application/cloudevents+json; charset=utf-8`.
 *
 * Binary mode is written here rather than by the SDK's `Kafka.binary`, which leaves the value an
 * object for the caller to serialize, repeats `datacontenttype` as a `ce_datacontenttype` header
 * beside `content-type`, and adds a header with the value `undefined` for every attribute the
 * event does not set (`ce_subject`, `ce_dataschema`, …).
 */
export function encodeResult(
  result: ResultEventOf | EmailUnsubscribedV1,
  mode: ResultEventMode,
): EncodedResult {
  switch (mode) {
    case 'binary':
      return {
        value: JSON.stringify(result.data),
        headers: {
          [CE.specversion.name]: result.specversion,
          [CE.id.name]: result.id,
          [CE.source.name]: result.source,
          [CE.type.name]: result.type,
          [CE.time.name]: result.time,
          [CE.sourceeventid.name]: result.sourceeventid,
          [CONTENT_TYPE_HEADER]: result.datacontenttype,
        },
      };
    case 'structured': {
      // Not strict: the factory builds every attribute itself; the specs validate its output.
      const message = Kafka.structured(new CloudEvent<typeof result.data>({ ...result }, false));
      return { value: message.value, headers: stringHeaders(message.headers) };
    }
  }
}

function stringHeaders(headers: Record<string, unknown>): Record<string, string> {
  const strings: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value === 'string') strings[name] = value;
  }
  return strings;
}
