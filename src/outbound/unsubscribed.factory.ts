import {
  EMAIL_UNSUBSCRIBED_V1,
  type EmailUnsubscribedV1,
  type EmailUnsubscribedV1Data,
} from '../contracts/email-unsubscribed.v1';
import { JSON_CONTENT_TYPE } from '../contracts/kafka-headers';
import { resultEventId, type ResultEventMode } from '../contracts/result-event';
import { encodeResult } from './result-encoding';
import type { OutboundRecord } from './result.publisher';

/** The `template` part of the event id: the one way an unsubscribe arrives today. */
const ONE_CLICK = 'one-click';

/**
 * The `email.unsubscribed.v1` event of one unsubscribe. Built from the stored unsubscribe alone,
 * so every copy a drain publishes again has the same id and time.
 */
export function unsubscribedEvent(
  data: EmailUnsubscribedV1Data,
  resultSource: string,
): EmailUnsubscribedV1 {
  return {
    specversion: '1.0',
    id: resultEventId(EMAIL_UNSUBSCRIBED_V1, data.unsubscribeId, ONE_CLICK),
    source: resultSource,
    type: EMAIL_UNSUBSCRIBED_V1,
    time: data.unsubscribedAt,
    datacontenttype: JSON_CONTENT_TYPE,
    sourceeventid: data.unsubscribeId,
    data,
  };
}

/**
 * The record of one unsubscribe, keyed by its `unsubscribeId`: never by the address, which a
 * compacted topic would keep under its key for good, beyond any erasure. Unsubscribes of one
 * address need no order among themselves: each stops the same mail.
 */
export function unsubscribedRecord(
  data: EmailUnsubscribedV1Data,
  { mode, source }: { mode: ResultEventMode; source: string },
): OutboundRecord {
  const encoded = encodeResult(unsubscribedEvent(data, source), mode);
  return { key: data.unsubscribeId, value: encoded.value, headers: encoded.headers };
}
