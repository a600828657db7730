import 'reflect-metadata';
import { VendorClient } from '../../src/email-api/vendor.client';
import { StoppingError, VendorError } from '../../src/email-api/vendor.errors';
import type { CampaignRequest } from '../../src/email-api/vendor.types';
import { SandboxServer } from '../../src/sandbox/sandbox.server';
import type { FaultConfig } from '../../src/sandbox/sandbox-options';
import { waitFor } from '../support/kafka-helpers';
import { sandboxVendorConfig, SANDBOX_KEYS } from '../support/sandbox-vendor';

const campaign: CampaignRequest = {
  subject: 'Hello',
  body: '<p>Hello</p>',
  preview: 'Hello',
  campaignId: 'stop',
  sender: { from: { name: 'Shop', email: 'hello@shop.example' } },
  recipients: { to: [{ email: 'ada@example.com', attributes: {} }] },
};

/**
 * A stop gives work back instead of doing it: after `stop()` no request is written and no retry
 * starts; a request on the wire gets the stop's wait, then is aborted as ambiguous.
 */
describe('VendorClient.stop against the sandbox over loopback', () => {
  let sandbox: SandboxServer;
  let client: VendorClient;

  const start = async (faults: FaultConfig, sleep?: (ms: number) => Promise<void>) => {
    sandbox = new SandboxServer({ ...SANDBOX_KEYS, faults });
    const url = await sandbox.listen(0);
    const config = sandboxVendorConfig(url, {
      VENDOR_RETRY_BASE_MS: '10000',
      VENDOR_RETRY_CAP_MS: '10000',
      VENDOR_HEADERS_TIMEOUT_MS: '60000',
    });
    const quiet = { log: () => undefined, warn: () => undefined };
    client = new VendorClient(config, { logger: quiet, sleep, random: () => 0.99 });
  };

  afterEach(async () => {
    await client.close();
    await sandbox.close();
  });

  it('aborts a request the vendor still holds once the wait is over, as ambiguous', async () => {
    await start({ latencyMs: 3_000 });
    const sending = client.sendCampaign(campaign);
    await waitFor(() => sandbox.stats.held['/relay/v1/email/campaign'] || undefined, {
      what: 'the vendor holding the request',
    });

    const started = Date.now();
    expect(await client.stop(200)).toEqual({ onTheWire: 1, aborted: 1 });
    const stoppedAfter = Date.now() - started;

    expect(stoppedAfter).toBeGreaterThanOrEqual(190);
    expect(stoppedAfter).toBeLessThan(5_000);
    // Aborted while the vendor held it, and no retry started: the one request is all it got.
    await expect(sending).rejects.toBeInstanceOf(StoppingError);
    expect(sandbox.stats.held['/relay/v1/email/campaign'] ?? 0).toBeLessThanOrEqual(1);
    expect(sandbox.stats.received).toBe(0);
  });

  it('lets a request on the wire finish within the wait, and records its answer', async () => {
    await start({ latencyMs: 300 });
    const sending = client.sendCampaign(campaign);
    await waitFor(() => sandbox.stats.held['/relay/v1/email/campaign'] || undefined, {
      what: 'the vendor holding the request',
    });

    expect(await client.stop(5_000)).toEqual({ onTheWire: 1, aborted: 0 });

    const [result] = await sending;
    expect(result.ok).toBe(true);
    expect(sandbox.stats.received).toBe(1);
  });

  it('starts no retry once stopped: a retry waiting for its backoff ends with nothing sent', async () => {
    await start({ statuses: [{ status: 503, share: 1 }] });
    const sending = client.createContactList({ name: 'after-stop' });
    await waitFor(() => sandbox.stats.received || undefined, { what: 'the first attempt' });

    await client.stop(1_000);

    await expect(sending).rejects.toBeInstanceOf(StoppingError);
    expect(sandbox.stats.received).toBe(1);
  });

  it('writes nothing once stopped', async () => {
    await start({});
    await client.stop(1_000);

    await expect(client.sendCampaign(campaign)).rejects.toBeInstanceOf(StoppingError);
    await expect(client.createContactList({ name: 'never' })).rejects.toBeInstanceOf(StoppingError);
    expect(sandbox.stats.received).toBe(0);
  });

  it('reports an aborted request as an ambiguous vendor failure when no retry is allowed', async () => {
    sandbox = new SandboxServer({ ...SANDBOX_KEYS, faults: { latencyMs: 3_000 } });
    const url = await sandbox.listen(0);
    const config = sandboxVendorConfig(url, { VENDOR_RETRY_MAX_ATTEMPTS: '1' });
    client = new VendorClient(config, { logger: { log: () => undefined, warn: () => undefined } });
    const creating = client.createContactList({ name: 'held' });
    await waitFor(() => sandbox.stats.held['/v1/contacts'] || undefined, {
      what: 'the vendor holding the request',
    });

    await client.stop(100);

    const error = await creating.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(VendorError);
    expect(error).toMatchObject({ ambiguous: true, retriable: true });
  });
});
