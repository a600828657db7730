import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { RedisWindowStore } from '../../src/windows/redis-window.store';
import { CampaignBatcher } from '../../src/delivery/campaign.batcher';
import { ContactListBatcher } from '../../src/delivery/contact-list.batcher';
import { VendorClient } from '../../src/email-api/vendor.client';
import { ClaimLostError } from '../../src/idempotency/claim-lost.error';
import { RedisIdempotencyStore } from '../../src/idempotency/redis-idempotency.store';
import { SandboxServer } from '../../src/sandbox/sandbox.server';
import { sandboxVendorConfig, SANDBOX_KEYS } from '../support/sandbox-vendor';

/**
 * A holder that gave its work back, or lost it, never writes its request afterwards: the check
 * comes before every attempt, retries included, not only before the first. The interleaving that
 * once created a contact list twice in a graceful restart, replayed on the real Redis: the
 * holder's first attempt fails, and while its retry waits the work is given back and taken over;
 * the retry must then write nothing.
 */
describe('a request whose holder gave it back while a retry waited', () => {
  const redis = new Redis('redis://127.0.0.1:6379');
  let sandbox: SandboxServer;
  let client: VendorClient;
  /** The retry's wait: held until the test has handed the work over. */
  let releaseRetry: () => void;
  let retryWaiting: Promise<void>;

  beforeEach(async () => {
    sandbox = new SandboxServer({
      ...SANDBOX_KEYS,
      faults: { statuses: [{ status: 503, share: 1 }] },
    });
    const url = await sandbox.listen(0);
    let heardRetry: () => void = () => undefined;
    retryWaiting = new Promise((resolve) => (heardRetry = resolve));
    const held = new Promise<void>((resolve) => (releaseRetry = resolve));
    const config = sandboxVendorConfig(url, { VENDOR_RETRY_MAX_ATTEMPTS: '3' });
    const quiet = { log: () => undefined, warn: () => undefined };
    client = new VendorClient(config, {
      logger: quiet,
      sleep: () => {
        heardRetry();
        return held;
      },
    });
  });

  afterEach(async () => {
    releaseRetry();
    await client.close();
    await sandbox.close();
  });

  afterAll(() => redis.quit());

  const requestsTo = (suffix: string) =>
    sandbox.requests.filter((r) => r.path.endsWith(suffix)).length;

  it('a window list given back and taken over: the old owner’s retry creates nothing', async () => {
    const prefix = `mailbridge-test:${randomUUID()}:`;
    const store = new RedisWindowStore(redis, prefix, {
      lingerMs: 1,
      maxMembers: 100,
      latePolicy: 'follow-up',
      retentionSeconds: 60,
    });
    const ended = { name: `handover-${randomUUID()}`, end: Date.now() - 60_000 };
    const member = { email: 'ada@example.com' };
    await store.add({
      window: ended,
      present: ended,
      order: {
        ref: 'e1:t',
        eventId: 'e1',
        eventType: 'order.placed.v1',
        template: 't',
        key: null,
        headers: {},
      },
      address: member.email,
      member,
    });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const taken = await store.take('owner-a', 60_000);
    expect(taken?.name).toBe(ended.name);

    const creating = new ContactListBatcher(client).createExact(ended.name, [member], {
      markSending: () => store.markSending(ended.name, 'owner-a'),
      traces: [],
    });
    const outcome = creating.then(
      () => 'created',
      (error: unknown) => error,
    );
    await retryWaiting; // the first attempt was written and failed; the retry waits
    expect(requestsTo('/contacts')).toBe(1);

    // The stop gives the list back; another replica takes it over from `sending`.
    await store.giveBack(ended.name, 'owner-a', Date.now());
    const takenOver = await store.take('owner-b', 60_000);
    expect(takenOver).toMatchObject({ name: ended.name, maybeSent: true, takenOver: true });
    sandbox.setFaults({});
    releaseRetry();

    expect(await outcome).toBeInstanceOf(ClaimLostError);
    expect(requestsTo('/contacts')).toBe(1);
  });

  it('a campaign claim taken over: the old holder’s retry sends nothing', async () => {
    const prefix = `mailbridge-test:${randomUUID()}:`;
    const claims = new RedisIdempotencyStore('redis://127.0.0.1:6379', 3_600, prefix);
    try {
      const a = { instance: `a-${randomUUID()}`, handling: '1' };
      const b = { instance: `b-${randomUUID()}`, handling: '1' };
      await claims.heartbeat(a.instance, 60_000);
      const key = `${randomUUID()}:welcome`;
      expect(await claims.claim(key, a, 60_000)).toEqual({ kind: 'claimed' });

      const batcher = new CampaignBatcher(
        client,
        { maxRecipients: 1, maxBytes: 1_000_000, lingerMs: 1 },
        { ledger: claims },
      );
      const content = {
        campaignId: 'handover',
        subject: 'Hello',
        body: '<p>Hello</p>',
        preview: 'Hello',
        sender: { from: { name: 'Shop', email: 'hello@shop.example' } },
      };
      const sending = batcher.add('k', content, [{ email: 'ada@example.com', attributes: {} }], {
        claim: { key, holder: a },
        category: 'transactional',
      });
      const outcome = sending.then(
        () => 'delivered',
        (error: unknown) => error,
      );
      await retryWaiting;
      expect(requestsTo('/email/campaign')).toBe(1);

      // The holder's process is gone as far as the store can tell; another replica takes over.
      await claims.retire(a.instance);
      expect(await claims.claim(key, b, 60_000)).toEqual({ kind: 'reclaimed', maybeSent: true });
      sandbox.setFaults({});
      releaseRetry();

      expect(await outcome).toBeInstanceOf(ClaimLostError);
      expect(requestsTo('/email/campaign')).toBe(1);
    } finally {
      await claims.close();
    }
  });
});
