import { ORDER_PLACED_V1 } from '../../contracts/order-placed.v1';
import { USER_SIGNED_UP_V1 } from '../../contracts/user-signed-up.v1';

/** An event as a producer publishes it: a CloudEvents 1.0 structured event, parsed. */
export type EventJson = Record<string, unknown>;

/**
 * What the preview knows of an event type: a sample to render when no `--event` is given, and
 * where a reader's locale sits in its `data` (the property `@ReaderLocale()` marks), for
 * `--locale` to set. A template on another event type previews only with `--event`.
 *
 * The samples are fixed, so that a preview reads the same on every run, and their values carry
 * what a copy must cope with: an apostrophe and an ampersand (escaped into the body only),
 * letters beyond ASCII, money and a date to format.
 */
export interface EventTypePreview {
  sample: EventJson;
  localePath: readonly string[];
}

const TIME = '2026-11-21T10:00:00Z';

export const EVENT_TYPE_PREVIEWS: Readonly<Record<string, EventTypePreview>> = {
  [USER_SIGNED_UP_V1]: {
    localePath: ['data', 'locale'],
    sample: {
      specversion: '1.0',
      id: 'preview-user-signed-up',
      type: USER_SIGNED_UP_V1,
      source: '/accounts',
      time: TIME,
      datacontenttype: 'application/json',
      data: {
        userId: 'u-1001',
        email: 'zoe.obrien@example.com',
        name: "Zoë O'Brien",
        plan: 'trial',
      },
    },
  },
  [ORDER_PLACED_V1]: {
    localePath: ['data', 'customer', 'locale'],
    sample: {
      specversion: '1.0',
      id: 'preview-order-placed',
      type: ORDER_PLACED_V1,
      source: '/shop',
      time: TIME,
      datacontenttype: 'application/json',
      data: {
        orderId: 'Order#1001',
        customer: {
          email: 'zoe.obrien@example.com',
          firstName: 'Zoë',
          lastName: "O'Brien",
          timeZone: 'Europe/Berlin',
        },
        total: '1234.50',
        currency: 'EUR',
        placedAt: '2026-11-21T23:30:00Z',
        items: [
          { sku: 'TEA-1', name: 'Green tea & honey', quantity: 2, unitPrice: '17.25' },
          { sku: 'POT-1', name: 'Teapot', quantity: 1, unitPrice: '1200.00' },
        ],
      },
    },
  },
};
