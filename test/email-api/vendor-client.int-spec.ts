import 'reflect-metadata';
import type { VendorConfig } from '../../src/config/app-config';
import { SandboxServer } from '../../src/sandbox/sandbox.server';
import type { FaultConfig } from '../../src/sandbox/sandbox-options';
import { VendorClient } from '../../src/email-api/vendor.client';
import { VendorAuthError } from '../../src/email-api/vendor.errors';
import type {
  CampaignRecipient,
  CampaignRequest,
  CampaignSendResult,
} from '../../src/email-api/vendor.types';
import { sandboxVendorConfig, SANDBOX_KEYS } from '../support/sandbox-vendor';
import { seededRandom } from '../support/seeded-random';

jest.setTimeout(60_000);

const { relayAccessToken: RELAY_KEY, apiKey: API_KEY } = SANDBOX_KEYS;
const MAX_ATTEMPTS = 10;

function recipients(count: number): CampaignRecipient[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `Person ${i}`,
    email: `person${i}@example.com`,
    attributes: { FIRST_NAME: `P${i}` },
  }));
}

function campaign(to: CampaignRecipient[]): CampaignRequest {
  return {
    subject: 'Hello {{FIRST_NAME}}',
    body: '<p>Hi {{FIRST_NAME}}</p>',
    preview: 'Hi',
    campaignId: 'int-test',
    sender: { from: { name: 'Shop', email: 'hello@shop.example' } },
    recipients: { to },
  };
}

/** The service's vendor config against the sandbox, with the retries these specs count on. */
function vendorConfig(url: string, env: Record<string, string> = {}): VendorConfig {
  return sandboxVendorConfig(url, {
    VENDOR_RETRY_MAX_ATTEMPTS: String(MAX_ATTEMPTS),
    VENDOR_RETRY_BASE_MS: '10',
    VENDOR_RETRY_CAP_MS: '200',
    VENDOR_MAX_RECIPIENTS_PER_REQUEST: '10',
    VENDOR_CHUNK_CONCURRENCY: '4',
    VENDOR_POOL_CONNECTIONS: '4',
    ...env,
  });
}

describe('VendorClient against the sandbox over loopback', () => {
  let sandbox: SandboxServer;
  let url: string;
  let client: VendorClient | undefined;
  const logLines: string[] = [];
  const logger = { log: (m: string) => logLines.push(m), warn: (m: string) => logLines.push(m) };

  const start = async (faults: FaultConfig, env: Record<string, string> = {}) => {
    sandbox = new SandboxServer({
      relayAccessToken: RELAY_KEY,
      apiKey: API_KEY,
      faults,
      random: seededRandom(20261121),
    });
    url = await sandbox.listen(0);
    client = new VendorClient(vendorConfig(url, env), { logger });
    return client;
  };

  /** Every recipient in exactly one accepted request, with the requestId the sandbox gave it. */
  const expectDeliveredOnce = (to: CampaignRecipient[], result: CampaignSendResult) => {
    expect(result.every((r) => r.ok)).toBe(true);
    expect(result.flatMap((r) => r.recipientIndexes).sort((a, b) => a - b)).toEqual([...to.keys()]);
    const accepted = sandbox.requests.filter((r) => r.status === 200);
    const delivered = accepted.flatMap((r) =>
      (r.body as CampaignRequest).recipients.to.map((x) => x.email),
    );
    expect(delivered.sort()).toEqual(to.map((r) => r.email).sort());
    const requestIdByEmail = new Map(
      accepted.flatMap((r) =>
        (r.body as CampaignRequest).recipients.to.map((x) => [
          x.email,
          (r.response as { requestId: string }).requestId,
        ]),
      ),
    );
    for (const entry of result) {
      for (const i of entry.recipientIndexes) {
        expect(entry.ok && entry.requestId).toBe(requestIdByEmail.get(to[i].email));
      }
    }
  };

  afterEach(async () => {
    await client?.close();
    client = undefined;
    await sandbox.close();
    logLines.length = 0;
  });

  it('delivers every recipient exactly once through 20% 503 and 10% 429, within the attempt bound', async () => {
    const vendor = await start({
      statuses: [
        { status: 503, share: 0.2 },
        { status: 429, share: 0.1, retryAfterSeconds: 1 },
      ],
    });
    const to = recipients(300);

    const result = await vendor.sendCampaign(campaign(to));

    expectDeliveredOnce(to, result);
    expect(result).toHaveLength(30);
    const stats = sandbox.stats;
    expect(stats.byStatus['503']).toBeGreaterThan(0);
    expect(stats.byStatus['429']).toBeGreaterThan(0);
    expect(Math.max(...result.map((r) => r.attempts))).toBeLessThanOrEqual(MAX_ATTEMPTS);
    // No hidden retries anywhere else: the sandbox saw exactly the attempts the client reports.
    expect(result.reduce((sum, r) => sum + r.attempts, 0)).toBe(stats.received);
    expect(stats.recipientsAccepted).toBe(300);
  });

  it('times out hung requests and retries them', async () => {
    const vendor = await start({ hangShare: 0.3 }, { VENDOR_HEADERS_TIMEOUT_MS: '150' });
    const to = recipients(60);

    const result = await vendor.sendCampaign(campaign(to));

    expectDeliveredOnce(to, result);
    expect(sandbox.stats.byFault.hang).toBeGreaterThan(0);
    expect(logLines.some((l) => l.includes('VendorTimeoutError'))).toBe(true);
  });

  it('retries after connection resets', async () => {
    const vendor = await start({ resetShare: 0.3, latencyMs: 2, latencyJitterMs: 10 });
    const to = recipients(60);

    const result = await vendor.sendCampaign(campaign(to));

    expectDeliveredOnce(to, result);
    expect(sandbox.stats.byFault.reset).toBeGreaterThan(0);
    expect(logLines.some((l) => l.includes('VendorNetworkError'))).toBe(true);
  });

  it('halves requests the sandbox answers with 413 until they fit', async () => {
    const vendor = await start({ maxRecipients: 7 }, { VENDOR_MAX_RECIPIENTS_PER_REQUEST: '40' });
    const to = recipients(80);

    const result = await vendor.sendCampaign(campaign(to));

    expectDeliveredOnce(to, result);
    expect(sandbox.stats.byStatus['413']).toBeGreaterThan(0);
    const sizes = sandbox.requests
      .filter((r) => r.status === 200)
      .map((r) => (r.body as CampaignRequest).recipients.to.length);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(7);
  });

  it('waits out a rate limit, honouring Retry-After', async () => {
    const vendor = await start({ rateLimit: { requests: 4, windowMs: 1000 } });
    const to = recipients(60);
    const started = Date.now();

    const result = await vendor.sendCampaign(campaign(to));

    expectDeliveredOnce(to, result);
    expect(sandbox.stats.byFault['rate-limit']).toBeGreaterThan(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000); // six requests need two windows
  });

  it('honours an HTTP-date Retry-After', async () => {
    const vendor = await start({
      statuses: [{ status: 503, share: 0.5, retryAfterSeconds: 2, retryAfterForm: 'http-date' }],
    });
    const to = recipients(20);
    const started = Date.now();

    const result = await vendor.sendCampaign(campaign(to));

    expectDeliveredOnce(to, result);
    expect(sandbox.stats.byStatus['503']).toBeGreaterThan(0);
    // An HTTP-date has whole seconds, so "in 2 s" means at least 1 s from now.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
  });

  it('stops at a wrong key with an auth error and does not hammer the vendor', async () => {
    await start({});
    client = new VendorClient(
      { ...vendorConfig(url), relayAccessToken: 'wrong-key-000' },
      { logger },
    );
    const to = recipients(50);

    const result = await client.sendCampaign(campaign(to));

    expect(result.every((r) => !r.ok && r.error instanceof VendorAuthError)).toBe(true);
    expect(sandbox.stats.received).toBeLessThanOrEqual(4); // at most the chunks already in flight
    expect(sandbox.stats.byStatus['401']).toBe(sandbox.stats.received);
  });

  it('creates a contact list and returns its UUID', async () => {
    const vendor = await start({ statuses: [{ status: 500, share: 0.5 }] });

    const created = await vendor.createContactList({
      name: 'Newsletter',
      members: [{ email: 'ada@example.com', firstName: 'Ada', tags: ['vip'] }],
    });

    const accepted = sandbox.requests.find((r) => r.status === 200);
    expect(created.id).toBe((accepted?.response as { id: string }).id);
    expect(accepted?.headers['x-api-key']).toBe(API_KEY);
  });
});
