import { randomUUID } from 'node:crypto';
import {
  EMAIL_CAMPAIGN_REQUESTED_V1,
  EMAIL_CONTACT_LIST_REQUESTED_V1,
  EMAIL_SUPPRESSION_REQUESTED_V1,
  ORDER_PLACED_V1,
  USER_SIGNED_UP_V1,
  type InboundType,
  type PublishableEvent,
} from '@mailbridge/contracts';

/** One sample event of `type`, unique per call, and the record key its producer would use. */
export function sampleEvent(
  type: InboundType,
  n: number,
): { event: PublishableEvent; key: string } {
  const id = randomUUID();
  const run = id.slice(0, 8);
  const time = new Date().toISOString();
  switch (type) {
    case USER_SIGNED_UP_V1: {
      const userId = `u-${run}`;
      const data = {
        userId,
        email: `user${n}.${run}@example.com`,
        name: `Sample User${n}`,
        plan: 'trial',
        // The reader's preferences, which some producers know: lenient fields.
        ...(n % 3 === 1 ? { locale: 'de-DE', timeZone: 'Europe/Berlin' } : {}),
      };
      return { event: { id, type, time, source: '/accounts', data }, key: userId };
    }
    case ORDER_PLACED_V1: {
      const orderId = `Order#${run}`;
      const event: PublishableEvent = {
        id,
        type,
        time,
        source: '/shop',
        data: {
          orderId,
          customer: {
            email: `buyer${n}.${run}@example.com`,
            firstName: `Buyer${n}`,
            lastName: 'Smith',
            ...(n % 3 === 1 ? { locale: 'es-AR', timeZone: 'America/Argentina/Buenos_Aires' } : {}),
          },
          total: '35.00',
          currency: 'EUR',
          items: [{ sku: 'TEA-1', name: 'Green tea', quantity: 2, unitPrice: '17.50' }],
          placedAt: time,
        },
      };
      return { event, key: orderId };
    }
    case EMAIL_CAMPAIGN_REQUESTED_V1: {
      const event: PublishableEvent = {
        id,
        type,
        time,
        source: '/marketing',
        data: {
          subject: 'Autumn news for {{FIRST_NAME}}',
          body: '<p>Hello {{FIRST_NAME}}, here is what is new.</p>',
          preview: 'What is new this autumn',
          campaignId: `autumn-${run}`,
          recipients: {
            to: [
              {
                name: 'Ada',
                email: `ada${n}.${run}@example.com`,
                attributes: { FIRST_NAME: 'Ada' },
              },
              {
                name: 'Bob',
                email: `bob${n}.${run}@example.com`,
                attributes: { FIRST_NAME: 'Bob' },
              },
            ],
          },
        },
      };
      return { event, key: id };
    }
    case EMAIL_CONTACT_LIST_REQUESTED_V1: {
      const event: PublishableEvent = {
        id,
        type,
        time,
        source: '/marketing',
        data: {
          name: `Autumn list ${run}`,
          members: [
            { email: `ada${n}.${run}@example.com`, firstName: 'Ada', tags: ['vip'] },
            { email: `bob${n}.${run}@example.com`, firstName: 'Bob', country: 'Argentina' },
          ],
        },
      };
      return { event, key: id };
    }
    case EMAIL_SUPPRESSION_REQUESTED_V1: {
      const address = `ada${n}.${run}@example.com`;
      const event: PublishableEvent = {
        id,
        type,
        time,
        source: '/preferences',
        data: { action: 'add', address, reason: 'unsubscribed', scope: 'marketing' },
      };
      return { event, key: id };
    }
  }
}
