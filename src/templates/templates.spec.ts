import { loadConfig } from '../config/config.loader';
import { OrderPlacedV1 } from '../contracts/order-placed.v1';
import { UserSignedUpV1 } from '../contracts/user-signed-up.v1';
import { plainToInstance } from 'class-transformer';
import { join } from 'node:path';
import { CampaignTemplate } from './campaign.template';
import { NewCustomersPlanner } from './new-customers/new-customers.planner';
import { OrderConfirmationPlanner } from './order-confirmation/order-confirmation.planner';
import { WelcomePlanner } from './welcome/welcome.planner';

const config = loadConfig({
  MAILBRIDGE_MODE: 'local',
  SENDER_FROM_NAME: 'Shop & Co <Best>',
  SENDER_FROM_EMAIL: 'hello@shop.example',
  CONTACT_LIST_WINDOW_MS: '60000',
});

/** The same, at a vendor whose merge puts values into the body as they are. */
const unescapingConfig = loadConfig({
  MAILBRIDGE_MODE: 'local',
  SENDER_FROM_NAME: 'Shop & Co <Best>',
  SENDER_FROM_EMAIL: 'hello@shop.example',
  VENDOR_MERGE_ESCAPES_HTML: 'false',
});

const signUp = plainToInstance(UserSignedUpV1, {
  id: 'evt-1',
  type: 'user.signed_up.v1',
  time: '2026-11-21T10:00:00Z',
  data: { userId: 'u-1', email: 'ada@example.com', name: 'Ada <script>Lovelace</script>' },
});

const order = plainToInstance(OrderPlacedV1, {
  id: 'evt-2',
  type: 'order.placed.v1',
  time: '2026-11-21T10:00:42Z',
  data: {
    orderId: 'Order#50993961',
    customer: {
      email: 'b@example.com',
      firstName: 'Bo',
      address: { city: 'Rosario', country: 'Argentina' },
    },
    total: '3500',
    currency: 'SOS',
    placedAt: '2026-11-21T10:00:42Z',
    items: [
      { sku: 'A', name: 'Mug & "Saucer"', quantity: 2, unitPrice: '1750' },
      { sku: 'B', name: 'Tray', quantity: 1, unitPrice: '12.5' },
    ],
  },
});

describe(WelcomePlanner.name, () => {
  const template = new WelcomePlanner(config);

  it('escapes values rendered into the HTML body only, and keeps the vendor placeholders', () => {
    const action = template.plan(signUp);
    expect(action.content.subject).toBe('Welcome to Shop & Co <Best>, {{FIRST_NAME}}');
    expect(action.content.preview).toBe('Your Shop & Co <Best> account is ready.');
    expect(action.content.body).toContain('{{FIRST_NAME}}');
    expect(action.content.body).toContain('Shop &amp; Co &lt;Best&gt;');
    expect(action.content.body).not.toContain('<Best>');
  });

  it('puts personal values into attributes as plain text, so one body serves everyone', () => {
    const action = template.plan(signUp);
    expect(action.batchKey).toBe('welcome:en');
    expect(action.recipients).toEqual([
      {
        name: 'Ada <script>Lovelace</script>',
        email: 'ada@example.com',
        attributes: {
          FIRST_NAME: 'Ada',
          FULL_NAME: 'Ada <script>Lovelace</script>',
          PLAN: 'free',
          USER_ID: 'u-1',
        },
      },
    ]);
    expect(template.plan(signUp)).toEqual(action); // pure: same event, same plan
  });

  it('escapes values for a vendor that does not, with plain-text twins for the subject', () => {
    const action = new WelcomePlanner(unescapingConfig).plan(signUp);
    expect(action.content.subject).toBe('Welcome to Shop & Co <Best>, {{FIRST_NAME_TEXT}}');
    expect(action.content.body).toContain('Hello {{FIRST_NAME}},');
    expect(action.recipients[0].attributes).toEqual({
      FIRST_NAME: 'Ada',
      FIRST_NAME_TEXT: 'Ada',
      FULL_NAME: 'Ada &lt;script&gt;Lovelace&lt;/script&gt;',
      PLAN: 'free',
      USER_ID: 'u-1',
    });
  });
});

describe(OrderConfirmationPlanner.name, () => {
  it('carries the order as plain-text attributes, the items one line each', () => {
    const action = new OrderConfirmationPlanner(config).plan(order);
    expect(action.recipients[0].attributes).toMatchObject({
      ORDER_ID: 'Order#50993961',
      TOTAL: 'SOS\u00a03,500',
      CURRENCY: 'SOS',
      PLACED_AT: 'November 21, 2026',
      ITEM_COUNT: '3',
      ITEMS: '2 × Mug & "Saucer" — SOS\u00a01,750\n1 × Tray — SOS\u00a012.5',
    });
    expect(action.content.body).toContain('<p style="white-space: pre-line">{{ITEMS}}</p>');
  });

  it('escapes the items for a vendor that does not, keeping their lines', () => {
    const action = new OrderConfirmationPlanner(unescapingConfig).plan(order);
    expect(action.recipients[0].attributes).toMatchObject({
      ORDER_ID: 'Order#50993961',
      ORDER_ID_TEXT: 'Order#50993961',
      ITEMS: '2 × Mug &amp; &quot;Saucer&quot; — SOS\u00a01,750\n1 × Tray — SOS\u00a012.5',
    });
  });
});

describe(NewCustomersPlanner.name, () => {
  it("places the customer in the window of the order's time, with the purchase fields", () => {
    const action = new NewCustomersPlanner(config).plan(order);
    expect(action).toEqual({
      kind: 'contact-list',
      mode: 'window',
      listKey: 'new-customers',
      window: { start: new Date('2026-11-21T10:00:00Z'), end: new Date('2026-11-21T10:01:00Z') },
      members: [
        {
          email: 'b@example.com',
          firstName: 'Bo',
          city: 'Rosario',
          country: 'Argentina',
          currency: 'SOS',
          source: 'mailbridge',
          tags: ['new-customer'],
          lastPurchaseOrder: '2026-11-21T10:00:42Z',
          lastPurchasePrice: '3500',
          latestOrderId: 'Order#50993961',
        },
      ],
    });
  });
});

describe(CampaignTemplate.name, () => {
  it('refuses a value whose key a plain-text twin needs, rather than send one of them wrong', () => {
    // Keyed loosely, as a planner's declared keys would never let it be.
    const welcome = new CampaignTemplate<string>(
      {
        dir: join(__dirname, 'welcome'),
        name: 'welcome',
        campaignId: 'w',
        attributeKeys: ['FIRST_NAME', 'FIRST_NAME_TEXT', 'FULL_NAME', 'PLAN', 'USER_ID'],
      },
      unescapingConfig,
    );
    expect(() => welcome.attributes({ FIRST_NAME: 'Ada', FIRST_NAME_TEXT: 'Bo' })).toThrow(
      'attribute FIRST_NAME_TEXT is taken by the plain-text twin of FIRST_NAME',
    );
  });
});
