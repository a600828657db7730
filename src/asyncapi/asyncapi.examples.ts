import { EMAIL_CAMPAIGN_REQUESTED_V1 } from '../contracts/email-campaign-requested.v1';
import { EMAIL_CAMPAIGN_SENT_V1 } from '../contracts/email-campaign-sent.v1';
import { EMAIL_CONTACT_LIST_CREATED_V1 } from '../contracts/email-contact-list-created.v1';
import { EMAIL_CONTACT_LIST_REQUESTED_V1 } from '../contracts/email-contact-list-requested.v1';
import { EMAIL_SUPPRESSION_REQUESTED_V1 } from '../contracts/email-suppression-requested.v1';
import { EMAIL_DISPATCH_FAILED_V1 } from '../contracts/email-dispatch-failed.v1';
import { EMAIL_UNSUBSCRIBED_V1 } from '../contracts/email-unsubscribed.v1';
import { ORDER_PLACED_V1 } from '../contracts/order-placed.v1';
import { USER_SIGNED_UP_V1 } from '../contracts/user-signed-up.v1';

const TIME = '2026-11-21T10:00:00Z';

/** One example event of each inbound type, with the attributes every encoding carries. */
export const INBOUND_EXAMPLES: Readonly<Record<string, { source: string; data: object }>> = {
  [USER_SIGNED_UP_V1]: {
    source: '/accounts',
    data: { userId: 'u-1', email: 'ada@example.com', name: 'Ada Lovelace', plan: 'trial' },
  },
  [ORDER_PLACED_V1]: {
    source: '/shop',
    data: {
      orderId: 'Order#50993961',
      customer: {
        email: 'ada@example.com',
        firstName: 'Ada',
        lastName: 'Lovelace',
        address: { address1: '1 Main St', city: 'Springfield', country: 'Argentina' },
      },
      total: '35.00',
      currency: 'EUR',
      placedAt: TIME,
      items: [{ sku: 'TEA-1', name: 'Green tea', quantity: 2, unitPrice: '17.50' }],
    },
  },
  [EMAIL_CAMPAIGN_REQUESTED_V1]: {
    source: '/marketing',
    data: {
      subject: 'Autumn news',
      body: '<p>Hello {{FIRST_NAME}}</p>',
      preview: 'What is new',
      campaignId: 'autumn-2026',
      recipients: {
        to: [
          { name: 'Ada', email: 'ada@example.com', attributes: { FIRST_NAME: 'Ada' } },
          { name: 'Bob', email: 'bob@example.com', attributes: { FIRST_NAME: 'Bob' } },
        ],
      },
    },
  },
  [EMAIL_CONTACT_LIST_REQUESTED_V1]: {
    source: '/marketing',
    data: {
      name: 'Autumn list',
      members: [
        { email: 'ada@example.com', firstName: 'Ada', tags: ['vip'] },
        { email: 'bob@example.com', firstName: 'Bob', country: 'Argentina' },
      ],
    },
  },
  [EMAIL_SUPPRESSION_REQUESTED_V1]: {
    source: '/preferences',
    data: { action: 'add', address: 'ada@example.com', reason: 'unsubscribed', scope: 'marketing' },
  },
};

/** One example `data` of each result type. */
export const RESULT_EXAMPLES: Readonly<Record<string, object>> = {
  [EMAIL_CAMPAIGN_SENT_V1]: {
    sourceEventId: 'evt-1',
    sourceEventType: USER_SIGNED_UP_V1,
    template: 'welcome',
    requestId: 'a3f1c2d4-5b6e-4f70-8192-a3b4c5d6e7f8',
    requestIds: ['a3f1c2d4-5b6e-4f70-8192-a3b4c5d6e7f8'],
    message: 'Email sent successfully',
    recipientCount: 1,
    batchRecipientCount: 42,
  },
  [EMAIL_CONTACT_LIST_CREATED_V1]: {
    sourceEventId: 'evt-3',
    sourceEventType: EMAIL_CONTACT_LIST_REQUESTED_V1,
    template: 'contact-list',
    listId: '1f0e2d3c-4b5a-4968-8776-655443322110',
    name: 'Autumn list',
    memberCount: 2,
  },
  [EMAIL_DISPATCH_FAILED_V1]: {
    sourceEventId: 'evt-2',
    sourceEventType: ORDER_PLACED_V1,
    template: 'order-confirmation',
    errorCode: 'VENDOR_REJECTED',
    vendorStatus: 400,
    retriable: false,
    message: 'the vendor refused the request (400)',
  },
  [EMAIL_UNSUBSCRIBED_V1]: {
    unsubscribeId: '0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f',
    address: 'ada@example.com',
    category: 'marketing',
    scope: 'marketing',
    unsubscribedAt: '2026-11-21T10:00:03.000Z',
  },
};

export const EXAMPLE_TIME = TIME;
