// Callbacks of evaluate() run in the browser: they use its DOM.
/// <reference lib="dom" />
import 'reflect-metadata';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { plainToInstance } from 'class-transformer';
import type { Page } from 'playwright-core';
import { loadConfig } from '../../src/config/config.loader';
import { OrderPlacedV1 } from '../../src/contracts/order-placed.v1';
import { UserSignedUpV1 } from '../../src/contracts/user-signed-up.v1';
import { VendorClient } from '../../src/email-api/vendor.client';
import { SandboxServer } from '../../src/sandbox/sandbox.server';
import { OrderConfirmationPlanner } from '../../src/templates/order-confirmation/order-confirmation.planner';
import type { CampaignAction } from '../../src/templates/planner';
import { WelcomePlanner } from '../../src/templates/welcome/welcome.planner';
import { HeadlessChromium } from '../support/headless-chromium';

jest.setTimeout(90_000);

const OUTPUT = join(__dirname, '../../test-output');
/** `MAILBRIDGE_DOCS_SCREENSHOT=1` also writes the screenshot the docs show. */
const DOCS_IMAGE = join(__dirname, '../../docs/images/inbox-locales.png');
const RELAY_KEY = 'relay-key-locales';
const API_KEY = 'api-key-locales';

const signUp = plainToInstance(UserSignedUpV1, {
  id: 'evt-ar',
  type: 'user.signed_up.v1',
  time: '2026-11-21T10:00:00Z',
  data: { userId: 'u-1', email: 'layla@example.com', name: 'ليلى حداد', locale: 'ar-EG' },
});

const order = plainToInstance(OrderPlacedV1, {
  id: 'evt-ja',
  type: 'order.placed.v1',
  time: '2026-11-21T10:00:42Z',
  data: {
    orderId: 'Order#2001',
    customer: {
      email: 'yuki@example.com',
      firstName: '由紀',
      locale: 'ja-JP',
      timeZone: 'Asia/Tokyo',
    },
    total: '3500',
    currency: 'JPY',
    placedAt: '2026-11-21T23:30:00Z',
    items: [{ sku: 'T-1', name: '抹茶', quantity: 2, unitPrice: '1750' }],
  },
});

/** The letters of each language's own script, as opposed to digits, Latin names, punctuation. */
const SCRIPT: Record<string, RegExp> = {
  ar: /\p{Script=Arabic}/u,
  ja: /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u,
};

/**
 * The families fontconfig says cover a language's characters: Chromium draws text only in fonts
 * fontconfig offers, so a glyph drawn in any other came from a font lacking it (a box).
 */
function familiesCovering(language: string): Set<string> {
  const listed = execFileSync('fc-list', [`:lang=${language}`, 'family'], { encoding: 'utf8' });
  return new Set(
    listed
      .split(/[\n,]/)
      .map((family) => family.trim())
      .filter(Boolean),
  );
}

/**
 * How an element's text in `language` was drawn: the fonts Chromium used (DevTools protocol),
 * in the page or in the email's body, a sandboxed iframe that Chromium runs as a frame of its
 * own. The text's own letters must come from fonts that cover the language: other fonts may
 * draw at most as many glyphs as there are other characters (Latin names, digits, spaces).
 * Without the language's fonts, its letters are drawn as boxes by whatever font is at hand.
 */
async function drawing(page: Page, language: string, selector: string, where = 'page') {
  const target = where === 'page' ? page : page.frames().find((f) => f.url() === 'about:srcdoc');
  if (!target) throw new Error('the page shows no email body');
  const cdp = await page.context().newCDPSession(target);
  try {
    await cdp.send('DOM.enable');
    await cdp.send('CSS.enable');
    const { root } = await cdp.send('DOM.getDocument');
    const { nodeId } = await cdp.send('DOM.querySelector', { nodeId: root.nodeId, selector });
    if (!nodeId) throw new Error(`no ${selector} in the ${where}`);
    const { object } = await cdp.send('DOM.resolveNode', { nodeId });
    const { result } = await cdp.send('Runtime.callFunctionOn', {
      objectId: object.objectId,
      functionDeclaration: 'function () { return this.textContent; }',
      returnByValue: true,
    });
    const text = [...(result.value as string)];
    const { fonts } = await cdp.send('CSS.getPlatformFontsForNode', { nodeId });
    const covering = familiesCovering(language);
    const glyphs = (inCovering: boolean) =>
      fonts
        .filter((font) => covering.has(font.familyName) === inCovering)
        .reduce((sum, font) => sum + font.glyphCount, 0);
    const others = text.filter((c) => !SCRIPT[language].test(c)).length;
    return {
      selector,
      fonts: fonts.map((font) => `${font.familyName}: ${font.glyphCount}`),
      inFontsOfTheLanguage: glyphs(true) > 0,
      noBoxes: glyphs(false) <= others,
    };
  } finally {
    await cdp.detach();
  }
}

/** What `drawing` finds for text drawn right: in the language's fonts, no letter in another. */
const DRAWN_RIGHT = { inFontsOfTheLanguage: true, noBoxes: true };

describe('right-to-left and CJK emails in the sandbox inbox, in headless Chromium', () => {
  let sandbox: SandboxServer;
  let url: string;
  let chromium: HeadlessChromium;
  let page: Page;

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
    // As the service sends them: each planner's copy and its recipient, one request each.
    const client = new VendorClient(config.vendor);
    const send = (action: CampaignAction) =>
      client.sendCampaign({ ...action.content, recipients: { to: action.recipients } });
    await send(new WelcomePlanner(config).plan(signUp));
    await send(new OrderConfirmationPlanner(config).plan(order));
    await client.close();

    chromium = await HeadlessChromium.launch({ width: 1000, height: 700 });
    page = chromium.page;
  });

  afterAll(async () => {
    await chromium?.close();
    await sandbox?.close();
  });

  const body = () => page.frameLocator('iframe[title="Body for recipient 0"]').locator('body');

  it('lists each campaign with its locale, its subject in its language and direction', async () => {
    await page.goto(`${url}/inbox`);
    const cells = page.locator('table').first().locator('tbody tr');
    await expect(cells.nth(0).locator('td').nth(3).textContent()).resolves.toBe('ar · rtl');
    await expect(cells.nth(1).locator('td').nth(3).textContent()).resolves.toBe('ja');

    const arabic = page.locator('a[lang="ar"]');
    await expect(arabic.textContent()).resolves.toBe('مرحبًا بك في Example Shop، {{FIRST_NAME}}');
    await expect(arabic.evaluate((a) => getComputedStyle(a).direction)).resolves.toBe('rtl');
    for (const language of ['ar', 'ja']) {
      // Fails naming the fonts used when the language has none: scripts/setup-chromium.sh.
      const drawn = await drawing(page, language, `a[lang="${language}"]`);
      expect(drawn).toMatchObject(DRAWN_RIGHT);
    }
  });

  it('shows the Arabic email right to left, in fonts that have its letters', async () => {
    await page.goto(`${url}/inbox/1`);
    await expect(page.locator('dt:text-is("Locale") + dd').textContent()).resolves.toBe(
      'ar, right to left',
    );
    const subject = page.locator('article.message dd[lang="ar"]').first();
    await expect(subject.textContent()).resolves.toBe('مرحبًا بك في Example Shop، ليلى');
    await expect(subject.evaluate((dd) => getComputedStyle(dd).direction)).resolves.toBe('rtl');

    await expect(body().evaluate((b) => getComputedStyle(b).direction)).resolves.toBe('rtl');
    // Right to left in fact, not only in style: the first line ends at the right of the body.
    const edges = await body().evaluate((b) => {
      const range = document.createRange();
      range.selectNodeContents(b.querySelector('p')!);
      const text = range.getBoundingClientRect();
      const box = b.getBoundingClientRect();
      return {
        textRight: Math.round(text.right),
        bodyRight: Math.round(box.right),
        textLeft: text.left,
        bodyLeft: box.left,
      };
    });
    expect(edges.textRight).toBe(edges.bodyRight);
    expect(edges.textLeft).toBeGreaterThan(edges.bodyLeft + 100);

    await expect(drawing(page, 'ar', 'p', 'body')).resolves.toMatchObject(DRAWN_RIGHT);
  });

  it('shows the Japanese email in a Japanese font', async () => {
    await page.goto(`${url}/inbox/2`);
    await expect(page.locator('dt:text-is("Locale") + dd').textContent()).resolves.toBe('ja');
    const subject = page.locator('article.message dd[lang="ja"]').first();
    await expect(subject.textContent()).resolves.toBe(
      'Example Shop：ご注文 Order#2001 を承りました',
    );
    await expect(body().locator('p').first().textContent()).resolves.toBe('由紀様');
    await expect(body().evaluate((b) => getComputedStyle(b).direction)).resolves.toBe('ltr');

    for (const [selector, where] of [
      ['article.message dd[lang="ja"]', 'page'],
      ['p', 'body'],
    ]) {
      await expect(drawing(page, 'ja', selector, where)).resolves.toMatchObject(DRAWN_RIGHT);
    }
  });

  it('saves one screenshot of the inbox and both emails', async () => {
    await page.goto(`${url}/inbox`);
    const list = await page.locator('table').first().screenshot();
    await page.setViewportSize({ width: 640, height: 700 });
    const emails: Buffer[] = [];
    for (const seq of [1, 2]) {
      await page.goto(`${url}/inbox/${seq}`);
      emails.push(await page.locator('article.message').first().screenshot());
    }
    await page.setViewportSize({ width: 1300, height: 700 });
    // Away from the sandbox's pages, whose CSP would refuse the images.
    await page.goto('about:blank');
    const img = (png: Buffer) => `<img src="data:image/png;base64,${png.toString('base64')}">`;
    await page.setContent(`<body style="margin:0;background:#f4f5f7">
      <div id="shot" style="display:inline-block;padding:8px">
        <div>${img(list)}</div>
        <div style="display:flex;gap:8px;margin-top:8px">${emails.map(img).join('')}</div>
      </div></body>`);
    const png = await page.locator('#shot').screenshot();

    mkdirSync(OUTPUT, { recursive: true });
    writeFileSync(join(OUTPUT, 'inbox-locales.png'), png);
    expect(png.length).toBeGreaterThan(10_000);
    // Small enough to commit: docs/images/inbox-locales.png is this image.
    expect(png.length).toBeLessThan(300_000);
    if (process.env.MAILBRIDGE_DOCS_SCREENSHOT === '1') writeFileSync(DOCS_IMAGE, png);
  });
});
