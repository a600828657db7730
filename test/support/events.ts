import type { ConsumedRecord } from '../../src/kafka/consumed-record';
import { uniqueName } from './kafka-helpers';
import { campaignEvent, contactListEvent } from '../hostile/valid-events';

export function signUp(i: number, run = uniqueName('run')) {
  const userId = `u-${i}`;
  return {
    id: `${run}-signup-${i}`,
    type: 'user.signed_up.v1',
    time: new Date().toISOString(),
    source: 'accounts',
    data: {
      userId,
      email: `user${i}@${run}.example.com`,
      name: `User Number${i}`,
      plan: i % 2 ? 'pro' : 'trial',
      // Some producers send the reader's zone (a lenient field); most do not.
      ...(i % 4 === 3 ? { timeZone: 'Europe/London' } : {}),
    },
  };
}

export function order(i: number, run = uniqueName('run'), placedAt = new Date().toISOString()) {
  return {
    id: `${run}-order-${i}`,
    type: 'order.placed.v1',
    time: placedAt,
    source: 'shop',
    data: {
      orderId: `Order#${1000 + i}`,
      customer: {
        email: `buyer${i}@${run}.example.com`,
        firstName: `Buyer${i}`,
        lastName: 'Smith',
        phone: '(123) 456-7890',
        address: {
          address1: `${i} Main St`,
          city: 'Springfield',
          postalCode: '12345',
          country: 'Argentina',
        },
        ...(i % 4 === 3 ? { timeZone: 'America/Argentina/Buenos_Aires' } : {}),
      },
      total: `${i}.50`,
      currency: 'EUR',
      items: [{ sku: `SKU-${i}`, name: `Thing <${i}>`, quantity: 2, unitPrice: `${i}.25` }],
      placedAt,
    },
  };
}

/** A valid `email.campaign.requested.v1` command with two recipients, unique per `i` and `run`. */
export function campaignRequested(i: number, run = uniqueName('run')) {
  return { ...campaignEvent(`${run}-campaign-${i}`), time: new Date().toISOString() };
}

/** A valid `email.contact_list.requested.v1` command with two members, unique per `i` and `run`. */
export function contactListRequested(i: number, run = uniqueName('run')) {
  return { ...contactListEvent(`${run}-contact-list-${i}`), time: new Date().toISOString() };
}

/** Valid records of every inbound topic, interleaved and in all three encodings (see there). */
export { interleavedValidEvents } from '../hostile/valid-events';

/** A consumed record for specs that run an action without a topic: what the runner reads of it. */
export const anyRecord: ConsumedRecord = {
  topic: 't',
  partition: 0,
  offset: '0',
  timestamp: '0',
  key: null,
  value: null,
  headers: {},
};
