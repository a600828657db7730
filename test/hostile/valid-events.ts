/**
 * Valid events of every inbound type, and the three ways a producer can put one on Kafka. Data
 * only: nothing here knows how mailbridge parses, so an integration test can produce the same
 * bytes to a real broker.
 */

/** The inbound topics, by role; a test maps them to its real topic names. */
export type CorpusTopic = 'signup' | 'order' | 'campaign' | 'contactList';

/** Plain JSON envelope, CloudEvents structured mode, CloudEvents binary mode (`ce_` headers). */
export type Encoding = 'plain' | 'structured' | 'binary';
export const ENCODINGS: readonly Encoding[] = ['plain', 'structured', 'binary'];

export interface CorpusEvent {
  id: string;
  type: string;
  time: string;
  source: string;
  data: Record<string, unknown>;
}

export interface ProducedRecord {
  value: Buffer | null;
  headers?: Record<string, Buffer | string>;
  key?: Buffer | string | null;
}

const TIME = '2026-11-21T10:00:00Z';

export const TYPE_OF: Readonly<Record<CorpusTopic, string>> = {
  signup: 'user.signed_up.v1',
  order: 'order.placed.v1',
  campaign: 'email.campaign.requested.v1',
  contactList: 'email.contact_list.requested.v1',
};
export const TOPICS = Object.keys(TYPE_OF) as CorpusTopic[];

export function signupEvent(id: string): CorpusEvent {
  const data = { userId: `u-${id}`, email: `${id}@example.com`, name: 'Ada Lovelace', plan: 'pro' };
  return { id, type: TYPE_OF.signup, time: TIME, source: '/accounts', data };
}

export function orderEvent(id: string): CorpusEvent {
  const data = {
    orderId: `Order#${id}`,
    customer: {
      email: `${id}@example.com`,
      firstName: 'Ada',
      lastName: 'Lovelace',
      address: { address1: '1 Main St', city: 'Springfield', country: 'Argentina' },
    },
    total: '35.00',
    currency: 'EUR',
    placedAt: TIME,
    items: [{ sku: 'TEA-1', name: 'Green tea', quantity: 2, unitPrice: '17.50' }],
  };
  return { id, type: TYPE_OF.order, time: TIME, source: '/shop', data };
}

export function campaignEvent(id: string): CorpusEvent {
  const data = {
    subject: 'Autumn news',
    body: '<p>Hello {{FIRST_NAME}}</p>',
    preview: 'What is new',
    campaignId: `c-${id}`,
    headers: { 'X-Campaign': 'autumn' },
    recipients: {
      to: [
        { name: 'Ada', email: `ada-${id}@example.com`, attributes: { FIRST_NAME: 'Ada' } },
        { name: 'Bob', email: `bob-${id}@example.com`, attributes: { FIRST_NAME: 'Bob' } },
      ],
    },
  };
  return { id, type: TYPE_OF.campaign, time: TIME, source: '/marketing', data };
}

export function contactListEvent(id: string): CorpusEvent {
  const data = {
    name: `Autumn list ${id}`,
    members: [
      { email: `ada-${id}@example.com`, firstName: 'Ada', tags: ['vip'] },
      { email: `bob-${id}@example.com`, firstName: 'Bob', country: 'Argentina' },
    ],
  };
  return { id, type: TYPE_OF.contactList, time: TIME, source: '/marketing', data };
}

export const EVENT_OF: Readonly<Record<CorpusTopic, (id: string) => CorpusEvent>> = {
  signup: signupEvent,
  order: orderEvent,
  campaign: campaignEvent,
  contactList: contactListEvent,
};

/** The record a producer using `encoding` would write for `event`. */
export function encode(event: CorpusEvent, encoding: Encoding): ProducedRecord {
  // Attributes a mutation added (or changed, such as `specversion`) travel too.
  const { id, type, time, source, data, ...extra } = event as CorpusEvent & Record<string, unknown>;
  switch (encoding) {
    case 'plain':
      return { value: json({ id, type, time, data, ...extra }), key: id };
    case 'structured': {
      const attributes = { specversion: '1.0', id, source, type, time };
      return {
        value: json({ ...attributes, datacontenttype: 'application/json', ...extra, data }),
        headers: { 'content-type': 'application/cloudevents+json' },
        key: id,
      };
    }
    case 'binary': {
      const attributes = { specversion: '1.0', id, type, source, time, ...extra };
      // A mutation that deleted an attribute leaves no header for it, not an empty one.
      const headers = Object.entries(attributes)
        .filter(([, v]) => v !== undefined)
        .map(([name, v]): [string, string] => [`ce_${name}`, String(v)]);
      return {
        value: json(data),
        headers: { ...Object.fromEntries(headers), 'content-type': 'application/json' },
        key: id,
      };
    }
  }
}

export function json(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value));
}

/**
 * `n` valid events per topic with unique ids, interleaved (signup, order, campaign, contact
 * list, signup, …) and rotating through the three encodings, for mixing between hostile records.
 */
export function interleavedValidEvents(
  n: number,
  run: string,
): Array<ProducedRecord & { topic: CorpusTopic; id: string }> {
  const records: Array<ProducedRecord & { topic: CorpusTopic; id: string }> = [];
  for (let i = 0; i < n; i++) {
    for (const topic of TOPICS) {
      const id = `${run}-${topic}-${i}`;
      records.push({ topic, id, ...encode(EVENT_OF[topic](id), ENCODINGS[i % 3]) });
    }
  }
  return records;
}
