import type { EmailCampaignSentV1 } from '../../src/contracts/email-campaign-sent.v1';
import type { EmailContactListCreatedV1 } from '../../src/contracts/email-contact-list-created.v1';
import type { CampaignRequest, ContactListRequest } from '../../src/email-api/vendor.types';
import { order } from '../support/events';
import { uniqueName, waitFor } from '../support/kafka-helpers';
import { PipelineFixture } from '../support/service-harness';

jest.setTimeout(120_000);

describe('order.placed.v1: confirmations and a contact list per window', () => {
  const fixture = new PipelineFixture();
  const run = uniqueName('orders');
  const windowMs = 60_000;
  // Two windows of the past: ten orders in the first, five in the second.
  const first = Math.floor(Date.now() / windowMs) * windowMs - 10 * windowMs;
  const orders = [
    ...Array.from({ length: 10 }, (_, i) =>
      order(i, run, new Date(first + 1000 * i).toISOString()),
    ),
    ...Array.from({ length: 5 }, (_, i) =>
      order(10 + i, run, new Date(first + windowMs + 1000 * i).toISOString()),
    ),
  ];

  beforeAll(async () => {
    await fixture.start();
    await fixture.publish('TOPIC_ORDER_PLACED', orders, (o) => o.data.orderId);
    await fixture.startService({
      CONTACT_LIST_WINDOW_MS: String(windowMs),
      // A window of the past gathers for a linger from its first order: ample for all of them.
      BATCH_LINGER_MS: '3000',
    });
  });
  afterAll(() => fixture.stop());

  it('confirms every order with its own values as plain-text attributes, money and dates written out', async () => {
    const sent = await waitFor(
      () => {
        const r = fixture.collector.results<EmailCampaignSentV1>(
          fixture.topics.TOPIC_CAMPAIGN_SENT,
        );
        return r.length >= orders.length ? r : undefined;
      },
      { what: 'order confirmations' },
    );
    expect(new Set(sent.map((r) => r.sourceeventid))).toEqual(new Set(orders.map((o) => o.id)));
    expect(sent.every((r) => r.data.template === 'order-confirmation')).toBe(true);

    const recipients = fixture.sandbox.requests
      .filter((r) => r.path.endsWith('/email/campaign'))
      .flatMap((r) => (r.body as CampaignRequest).recipients.to);
    expect(recipients).toHaveLength(orders.length);
    const o = orders[3];
    const r = recipients.find((x) => x.email === o.data.customer.email);
    expect(r).toEqual({
      name: 'Buyer3 Smith',
      email: o.data.customer.email,
      attributes: {
        FIRST_NAME: 'Buyer3',
        ORDER_ID: 'Order#1003',
        TOTAL: '€3.50',
        CURRENCY: 'EUR',
        // The default copy's locale, on the calendar of the zone this customer names.
        PLACED_AT: new Intl.DateTimeFormat('en', {
          dateStyle: 'long',
          timeZone: 'America/Argentina/Buenos_Aires',
        }).format(new Date(o.data.placedAt)),
        ITEM_COUNT: '2',
        ITEMS: '2 × Thing <3> — €3.25',
      },
    });
  });

  it("creates one contact list per window holding exactly that window's customers", async () => {
    const created = await waitFor(
      () => {
        const r = fixture.collector.results<EmailContactListCreatedV1>(
          fixture.topics.TOPIC_CONTACT_LIST_CREATED,
        );
        return r.length >= orders.length ? r : undefined;
      },
      { what: 'contact list results' },
    );
    const lists = fixture.sandbox.requests.filter((r) => r.path.endsWith('/contacts'));
    expect(lists).toHaveLength(2);
    const bodies = lists
      .map((l) => l.body as ContactListRequest)
      .sort((a, b) => a.name.localeCompare(b.name));
    const windowName = (ms: number) =>
      `new-customers-${new Date(ms).toISOString().slice(0, 16).replace(/[-:]/g, '')}Z`;
    expect(bodies.map((b) => b.name)).toEqual([windowName(first), windowName(first + windowMs)]);
    expect(bodies[0].members?.map((m) => m.email).sort()).toEqual(
      orders
        .slice(0, 10)
        .map((o) => o.data.customer.email)
        .sort(),
    );
    expect(bodies[1].members?.map((m) => m.email).sort()).toEqual(
      orders
        .slice(10)
        .map((o) => o.data.customer.email)
        .sort(),
    );
    expect(bodies[0].members?.find((m) => m.email === orders[2].data.customer.email)).toEqual({
      email: orders[2].data.customer.email,
      firstName: 'Buyer2',
      lastName: 'Smith',
      phone: '(123) 456-7890',
      address1: '2 Main St',
      city: 'Springfield',
      postalCode: '12345',
      country: 'Argentina',
      currency: 'EUR',
      source: 'mailbridge',
      tags: ['new-customer'],
      lastPurchaseOrder: orders[2].data.placedAt,
      lastPurchasePrice: '2.50',
      latestOrderId: 'Order#1002',
    });
    const listIds = new Map(
      lists.map((l) => [(l.body as ContactListRequest).name, (l.response as { id: string }).id]),
    );
    for (const result of created) {
      expect(result.data.listId).toBe(listIds.get(result.data.name));
    }
    expect(new Set(created.map((r) => r.sourceeventid)).size).toBe(orders.length);
  });
});
