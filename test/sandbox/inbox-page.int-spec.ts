import 'reflect-metadata';
import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { loadConfig } from '../../src/config/config.loader';
import { SandboxServer } from '../../src/sandbox/sandbox.server';
import { VendorClient } from '../../src/email-api/vendor.client';
import { HeadlessChromium } from '../support/headless-chromium';

jest.setTimeout(90_000);

const OUTPUT = join(__dirname, '../../test-output');
const RELAY_KEY = 'relay-key-inbox';
const API_KEY = 'api-key-inbox';
const XSS_NAME = '<script>globalThis.__pwned = 1</script>Eve';
const XSS_ATTRIBUTE = '<img src=x onerror="parent.__pwned = 1">';

describe('the sandbox inbox page in headless Chromium', () => {
  let sandbox: SandboxServer;
  let url: string;
  let chromium: HeadlessChromium;
  let page: Page;
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    sandbox = new SandboxServer({ relayAccessToken: RELAY_KEY, apiKey: API_KEY });
    url = await sandbox.listen(0);
    const config = loadConfig({
      KAFKA_BROKERS: '127.0.0.1:1',
      SENDER_FROM_EMAIL: 'hello@shop.example',
      SENDER_FROM_NAME: 'Example Shop',
      VENDOR_RELAY_BASE_URL: `${url}/relay/v1`,
      VENDOR_BASE_URL: `${url}/v1`,
      VENDOR_RELAY_ACCESS_TOKEN: RELAY_KEY,
      VENDOR_API_KEY: API_KEY,
      SUPPRESSION_HASH_KEY: 'suppression-hash-key-for-tests-only-32',
    });
    const client = new VendorClient(config.vendor);
    await client.sendCampaign({
      subject: 'Welcome, {{FIRST_NAME}}',
      preview: 'Your {{PLAN}} plan is ready',
      body: '<h1>Hi {{FIRST_NAME}}</h1><p>Plan: <b>{{PLAN}}</b></p>',
      campaignId: 'welcome-v1',
      headers: { 'List-Unsubscribe': '<https://shop.example/u/1>' },
      sender: { from: { name: 'Example Shop', email: 'hello@shop.example' } },
      recipients: {
        to: [
          {
            name: 'Ada Lovelace',
            email: 'ada@example.com',
            attributes: { FIRST_NAME: 'Ada', PLAN: 'pro' },
          },
          { name: XSS_NAME, email: 'eve@example.com', attributes: { FIRST_NAME: XSS_ATTRIBUTE } },
        ],
      },
    });
    await client.createContactList({
      name: 'Newsletter <b>launch</b>',
      members: [
        { email: 'grace@example.com', firstName: 'Grace', tags: ['vip'], city: 'Arlington' },
      ],
    });
    await client.close();

    chromium = await HeadlessChromium.launch({ width: 1100, height: 900 });
    page = chromium.page;
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
  });

  afterAll(async () => {
    await chromium?.close();
    await sandbox?.close();
  });

  it('lists received campaigns and contact lists', async () => {
    await page.goto(`${url}/inbox`);

    await expect(page.locator('h2').allTextContents()).resolves.toEqual([
      'Campaigns (1)',
      'Contact lists (1)',
    ]);
    const campaignRow = page.locator('table').first().locator('tbody tr');
    await expect(campaignRow.locator('td').allTextContents()).resolves.toEqual([
      '1',
      expect.any(String) as string,
      'Welcome, {{FIRST_NAME}}',
      // The body sets no <html lang>: no locale to show.
      '—',
      'welcome-v1',
      '2',
      sandbox.requests[0].response &&
        (sandbox.requests[0].response as { requestId: string }).requestId,
    ]);
    await expect(
      page.getByRole('link', { name: 'Newsletter <b>launch</b>' }).count(),
    ).resolves.toBe(1);
  });

  it('shows each recipient their email with attributes merged, escaped, and takes a screenshot', async () => {
    await page.goto(`${url}/inbox`);
    await page.getByRole('link', { name: 'Welcome, {{FIRST_NAME}}' }).click();
    await page.waitForURL(/\/inbox\/1$/);

    const messages = page.locator('article.message');
    await expect(messages.count()).resolves.toBe(2);
    const ada = messages.nth(0).locator('dd');
    await expect(ada.allTextContents()).resolves.toEqual([
      'Ada Lovelace <ada@example.com>',
      'Welcome, Ada',
      'Your pro plan is ready',
    ]);
    const adaBody = page.frameLocator('iframe[title="Body for recipient 0"]');
    await expect(adaBody.locator('h1').textContent()).resolves.toBe('Hi Ada');
    await expect(adaBody.locator('b').textContent()).resolves.toBe('pro');

    // Hostile values show as text, in the page and inside the email body alike.
    const eve = messages.nth(1).locator('dd');
    await expect(eve.nth(0).textContent()).resolves.toBe(`${XSS_NAME} <eve@example.com>`);
    await expect(eve.nth(1).textContent()).resolves.toBe(`Welcome, ${XSS_ATTRIBUTE}`);
    const eveBody = page.frameLocator('iframe[title="Body for recipient 1"]');
    await expect(eveBody.locator('h1').textContent()).resolves.toBe(`Hi ${XSS_ATTRIBUTE}`);
    await expect(eveBody.locator('img').count()).resolves.toBe(0);
    await expect(page.locator('script, img').count()).resolves.toBe(0);
    await expect(page.evaluate(() => '__pwned' in globalThis)).resolves.toBe(false);

    mkdirSync(OUTPUT, { recursive: true });
    const file = join(OUTPUT, 'sandbox-inbox.png');
    await page.screenshot({ path: file, fullPage: true });
    expect(statSync(file).size).toBeGreaterThan(10_000);
    expect(consoleErrors).toEqual([]);
  });

  it('shows a contact list with its members', async () => {
    await page.goto(`${url}/inbox/2`);

    await expect(page.locator('h1').textContent()).resolves.toBe(
      'Contact list #2: Newsletter <b>launch</b>',
    );
    await expect(page.locator('tbody td').allTextContents()).resolves.toEqual([
      'grace@example.com',
      'Grace',
      'vip',
      'city: Arlington',
    ]);
  });
});
