import type { TopicsConfig } from '../../src/config/app-config';
import type { ParseOptions } from '../../src/inbound/event.parser';
import { typesByTopic } from '../../src/inbound/topic-types';
import type { ConsumedRecord } from '../../src/kafka/consumed-record';
import { CORPUS_MAX_EVENT_BYTES } from './corpus';

/** How the specs that parse the corpus directly read it, without a broker. */

// The corpus names topics by role; here the role is the topic name.
const topics = {
  userSignedUp: 'signup',
  orderPlaced: 'order',
  campaignRequested: 'campaign',
  contactListRequested: 'contactList',
} as TopicsConfig;

export const CORPUS_PARSE_OPTIONS: ParseOptions = {
  maxBytes: CORPUS_MAX_EVENT_BYTES,
  typesByTopic: typesByTopic(topics),
};

/** A corpus case (or a valid record) as the transport would hand it over. */
export function corpusRecord(c: {
  topic: string;
  value: Buffer | null;
  headers?: Record<string, Buffer | string>;
}): ConsumedRecord {
  const { topic, value, headers = {} } = c;
  return { topic, partition: 0, offset: '0', timestamp: '0', key: null, value, headers };
}
