import { TYPE_OF, type CorpusTopic } from './valid-events';

/**
 * One valid event of each inbound type with every optional field set, at every level, so that
 * a sweep that breaks one field at a time reaches every rule of the contract. Data only.
 */
const ENVELOPE = {
  id: 'evt-full-1',
  time: '2026-11-21T10:00:00Z',
  source: '/full',
  specversion: '1.0',
  datacontenttype: 'application/json',
  dataschema: 'https://schemas.example.com/full.json',
  subject: 'full',
};

const ADDRESS = {
  address1: '1 Main St',
  address2: 'Floor 2',
  city: 'Springfield',
  province: 'Buenos Aires',
  postalCode: 'B1000',
  country: 'Argentina',
};

export const FULL_EVENTS: Readonly<Record<CorpusTopic, Record<string, unknown>>> = {
  signup: {
    ...ENVELOPE,
    type: TYPE_OF.signup,
    data: {
      userId: 'u-1',
      email: 'ada@example.com',
      name: 'Ada Lovelace',
      locale: 'en-GB',
      timeZone: 'Europe/London',
      plan: 'trial',
      signupSource: 'web',
    },
  },
  order: {
    ...ENVELOPE,
    type: TYPE_OF.order,
    data: {
      orderId: 'Order#1',
      customer: {
        email: 'ada@example.com',
        firstName: 'Ada',
        lastName: 'Lovelace',
        phone: '+44 20 0000 0000',
        company: 'Analytical Engines',
        address: ADDRESS,
        locale: 'es-AR',
        timeZone: 'America/Argentina/Buenos_Aires',
      },
      total: '35.00',
      currency: 'EUR',
      items: [{ sku: 'TEA-1', name: 'Green tea', quantity: 2, unitPrice: '17.50' }],
      placedAt: '2026-11-21T10:00:00Z',
    },
  },
  campaign: {
    ...ENVELOPE,
    type: TYPE_OF.campaign,
    data: {
      headers: { 'X-Campaign': 'autumn' },
      subject: 'Autumn news',
      body: '<p>Hello {{FIRST_NAME}}</p>',
      preview: 'What is new',
      campaignId: 'c-1',
      sender: {
        from: { name: 'Shop', email: 'shop@example.com' },
        replyTo: { name: 'Help', email: 'help@example.com' },
      },
      recipients: {
        to: [
          { name: 'Ada', email: 'ada@example.com', attributes: { FIRST_NAME: 'Ada' } },
          { name: 'Bob', email: 'bob@example.com', attributes: { FIRST_NAME: 'Bob' } },
        ],
      },
      disableTrackingLinks: true,
    },
  },
  contactList: {
    ...ENVELOPE,
    type: TYPE_OF.contactList,
    data: {
      name: 'Autumn list',
      members: [
        {
          email: 'ada@example.com',
          firstName: 'Ada',
          lastName: 'Lovelace',
          source: 'shop',
          birthday: '1815-12-10',
          tags: ['vip'],
          currency: 'GBP',
          ...ADDRESS,
          phone: '+44 20 0000 0000',
          company: 'Analytical Engines',
          lastPurchaseOrder: 'Order#1',
          lastPurchasePrice: '35.00',
          latestOrderId: 'Order#1',
        },
        { email: 'bob@example.com' },
      ],
    },
  },
};
