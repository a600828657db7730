import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { loadConfig } from '../../src/config/config.loader';
import { OrderPlacedV1 } from '../../src/contracts/order-placed.v1';
import { VendorClient } from '../../src/email-api/vendor.client';
import { SandboxServer } from '../../src/sandbox/sandbox.server';
import { OrderConfirmationPlanner } from '../../src/templates/order-confirmation/order-confirmation.planner';
import { HeadlessChromium } from '../support/headless-chromium';

jest.setTimeout(90_000);

const RELAY_KEY = 'relay-key-attributes';
const API_KEY = 'api-key-attributes';

const order = plainToInstance(OrderPlacedV1, {
  id: 'evt-1',
  type: 'order.placed.v1',
  time: '2026-11-21T10:00:42Z',
  data: {
    orderId: 'A&B<1>',
    customer: { email: 'ob@example.com', firstName: "O'Brien & <Sons>" },
    total: '23.25',
    currency: 'EUR',
    placedAt: '2026-11-21T10:00:42Z',
    items: [
      { sku: 'T-1', name: 'Green <b>tea</b>', quantity: 2, unitPrice: '8.75' },
      { sku: 'M-1', name: 'Mug & "Saucer"', quantity: 1, unitPrice: '5.75' },
    ],
  },
});

describe('an order confirmation in the sandbox inbox, in headless Chromium', () => {
  let chromium: HeadlessChromium;

  beforeAll(async () => {
    chromium = await HeadlessChromium.launch();
  });

  afterAll(() => chromium?.close());

  it.each([true, false])('reads as written when the merge escapes: %s', async (escapes) => {
    const sandbox = new SandboxServer({
      relayAccessToken: RELAY_KEY,
      apiKey: API_KEY,
      mergeEscapesHtml: escapes,
    });
    const url = await sandbox.listen(0);
    try {
      const config = loadConfig({
        KAFKA_BROKERS: '127.0.0.1:1',
        SENDER_FROM_EMAIL: 'hello@shop.example',
        SENDER_FROM_NAME: 'Bread & <Butter>',
        VENDOR_RELAY_BASE_URL: `${url}/relay/v1`,
        VENDOR_BASE_URL: `${url}/v1`,
        VENDOR_RELAY_ACCESS_TOKEN: RELAY_KEY,
        VENDOR_API_KEY: API_KEY,
        SUPPRESSION_HASH_KEY: 'suppression-hash-key-for-tests-only-32',
        VENDOR_MERGE_ESCAPES_HTML: String(escapes),
      });
      const action = new OrderConfirmationPlanner(config).plan(order);
      const client = new VendorClient(config.vendor);
      await client.sendCampaign({ ...action.content, recipients: { to: action.recipients } });
      await client.close();

      const page = await chromium.browser.newPage();
      await page.goto(`${url}/inbox/1`);
      const shown = page.locator('article.message dd');
      await expect(shown.nth(1).textContent()).resolves.toBe(
        'Your Bread & <Butter> order A&B<1> is confirmed',
      );
      await expect(shown.nth(2).textContent()).resolves.toBe('Thank you for your order of €23.25.');
      const body = page.frameLocator('iframe[title="Body for recipient 0"]');
      await expect(body.locator('p').first().innerText()).resolves.toBe("Hello O'Brien & <Sons>,");
      await expect(body.locator('p[style]').innerText()).resolves.toBe(
        '2 × Green <b>tea</b> — €8.75\n1 × Mug & "Saucer" — €5.75',
      );
      await expect(body.locator('li, b, sons').count()).resolves.toBe(0);
      await page.close();
    } finally {
      await sandbox.close();
    }
  });
});
