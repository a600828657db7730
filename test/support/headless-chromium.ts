import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** Debian's chromium (scripts/setup-chromium.sh); playwright-core never downloads a browser. */
const CHROMIUM = '/usr/bin/chromium';
/** Headless, no sandbox (root in CI), and nothing that reaches off the machine. */
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** One headless Chromium of a spec, in a profile of its own that `close` removes. */
export class HeadlessChromium {
  private constructor(
    private readonly profile: string,
    readonly browser: BrowserContext,
    /** The window it opened with. */
    readonly page: Page,
  ) {}

  static async launch(viewport?: { width: number; height: number }): Promise<HeadlessChromium> {
    if (!existsSync(CHROMIUM)) {
      throw new Error(`${CHROMIUM} is missing: run scripts/setup-chromium.sh (as root)`);
    }
    const profile = mkdtempSync(join(tmpdir(), 'mailbridge-chromium-'));
    const browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      ...(viewport ? { viewport } : {}),
      args: ARGS,
    });
    const page = browser.pages()[0] ?? (await browser.newPage());
    return new HeadlessChromium(profile, browser, page);
  }

  async close(): Promise<void> {
    await this.browser.close();
    rmSync(this.profile, { recursive: true, force: true });
  }
}
