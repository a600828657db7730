import { Redis } from 'ioredis';
import type { EmailCampaignSentV1 } from '../../src/contracts/email-campaign-sent.v1';
import type { EmailContactListCreatedV1 } from '../../src/contracts/email-contact-list-created.v1';
import type { EmailDispatchFailedV1 } from '../../src/contracts/email-dispatch-failed.v1';
import type { CampaignRequest, ContactListRequest } from '../../src/email-api/vendor.types';
import { readDeadLetterHeaders } from '../../src/contracts/dead-letter-headers';
import { AddressKeyer } from '../../src/suppression/address-key';
import { campaignRequested, order } from '../support/events';
import { produce, uniqueName, waitFor } from '../support/kafka-helpers';
import { PipelineFixture } from '../support/service-harness';

jest.setTimeout(120_000);

/** The key `serviceEnv` gives the service: the spec hashes addresses as the service does. */
const keyer = new AddressKeyer('suppression-hash-key-for-tests-only-32');
const HOUR = 3_600_000;

function suppression(
  id: string,
  address: string,
  reason: string,
  scope: 'marketing' | 'all',
  action: 'add' | 'remove' = 'add',
) {
  return {
    id,
    type: 'email.suppression.requested.v1',
    time: new Date().toISOString(),
    source: '/preferences',
    data: { action, address, reason, scope },
  };
}

/** Every key under `prefix`, with everything it holds as text (names, fields, values). */
async function contentsOf(redis: Redis, prefix: string): Promise<Map<string, string>> {
  const contents = new Map<string, string>();
  for await (const keys of redis.scanStream({ match: `${prefix}*`, count: 500 })) {
    for (const key of keys as string[]) {
      const type = await redis.type(key);
      let text = '';
      if (type === 'hash') text = JSON.stringify(await redis.hgetall(key));
      else if (type === 'zset') text = JSON.stringify(await redis.zrange(key, '0', '-1'));
      else if (type === 'string') text = (await redis.get(key)) ?? '';
      else if (type === 'set') text = JSON.stringify(await redis.smembers(key));
      else if (type === 'list') text = JSON.stringify(await redis.lrange(key, '0', '-1'));
      contents.set(key, `${key} ${text}`);
    }
  }
  return contents;
}

describe('consent: the suppression list and erasure, on the real broker and Redis', () => {
  const fixture = new PipelineFixture();
  const run = uniqueName('consent');
  const redis = new Redis('redis://127.0.0.1:6379', { lazyConnect: true });
  // Orders of a window three hours ago (it closes a linger after they arrive) and one of now,
  // whose hour-long window stays open for the whole spec.
  const past = new Date(Math.floor(Date.now() / HOUR) * HOUR - 3 * HOUR + 1_000).toISOString();
  const unsubscribed = order(1, run, past); // marketing only: still confirmed, not listed
  const bounced = order(2, run, past); // every category: neither confirmed nor listed
  const listed = order(4, run, past);
  const erased = order(3, run); // erased while its window is open
  const campaign = campaignRequested(1, run);
  const [ada, bob] = (campaign.data as { recipients: { to: Array<{ email: string }> } }).recipients
    .to;
  const email = (o: ReturnType<typeof order>) => o.data.customer.email;
  const suppressionKey = `${fixture.keyPrefix}suppression`;

  beforeAll(async () => {
    await redis.connect();
    await fixture.start();
    await fixture.startService({ CONTACT_LIST_WINDOW_MS: String(HOUR), BATCH_LINGER_MS: '1000' });
    await fixture.publish(
      'TOPIC_SUPPRESSION_REQUESTED',
      [
        suppression(`${run}-s1`, email(unsubscribed).toUpperCase(), 'unsubscribed', 'marketing'),
        suppression(`${run}-s2`, email(bounced), 'bounced', 'all'),
        suppression(`${run}-s3`, ada.email, 'complained', 'marketing'),
      ],
      (e) => e.id,
    );
    // Commands and orders travel on different topics: the list is complete before orders come.
    await waitFor(async () => ((await redis.hlen(suppressionKey)) >= 3 ? true : undefined), {
      what: 'three suppression entries',
    });
    await fixture.publish(
      'TOPIC_ORDER_PLACED',
      [unsubscribed, bounced, listed, erased],
      (o) => o.data.orderId,
    );
    await fixture.publish('TOPIC_CAMPAIGN_REQUESTED', [campaign], (e) => e.id);
  });
  afterAll(async () => {
    await fixture.stop();
    redis.disconnect();
  });

  const results = <T>(topic: string) => fixture.collector.results<T>(topic);
  const failed = () => results<EmailDispatchFailedV1>(fixture.topics.TOPIC_DISPATCH_FAILED);
  const sent = () => results<EmailCampaignSentV1>(fixture.topics.TOPIC_CAMPAIGN_SENT);
  const campaignRecipients = () =>
    fixture.sandbox.requests
      .filter((r) => r.path.endsWith('/email/campaign'))
      .flatMap((r) => (r.body as CampaignRequest).recipients.to.map((t) => t.email));

  it('sends a suppressed address nothing, says why, and still confirms an order to an address suppressed for marketing only', async () => {
    const confirmations = await waitFor(
      () => {
        const ours = sent().filter((r) => r.data.template === 'order-confirmation');
        return ours.length >= 3 ? ours : undefined;
      },
      { what: 'three order confirmations' },
    );
    expect(new Set(confirmations.map((r) => r.sourceeventid))).toEqual(
      new Set([unsubscribed.id, listed.id, erased.id]),
    );
    const refused = await waitFor(
      () =>
        failed().find(
          (r) => r.sourceeventid === bounced.id && r.data.template === 'order-confirmation',
        ),
      { what: "the bounced address's confirmation result" },
    );
    expect(refused.data).toMatchObject({
      errorCode: 'INVALID_REQUEST',
      reasonCode: 'SUPPRESSED',
      suppressedCount: 1,
      retriable: false,
      message: 'not sent: the recipient is on the suppression list',
    });
    expect(JSON.stringify(refused)).not.toContain(email(bounced));
    const recipients = campaignRecipients().map((a) => a.toLowerCase());
    expect(recipients).toContain(email(unsubscribed)); // transactional, marketing-only entry
    expect(recipients).not.toContain(email(bounced));
  });

  it("creates the past window's list without its suppressed members and answers their orders", async () => {
    const created = await waitFor(
      () =>
        results<EmailContactListCreatedV1>(fixture.topics.TOPIC_CONTACT_LIST_CREATED).find(
          (r) => r.sourceeventid === listed.id,
        ),
      { what: "the listed order's contact list" },
    );
    expect(created.data).toMatchObject({ memberCount: 1, suppressedCount: 2 });
    const lists = fixture.sandbox.requests
      .filter((r) => r.path.endsWith('/contacts'))
      .map((r) => (r.body as ContactListRequest).members?.map((m) => m.email));
    expect(lists).toEqual([[email(listed)]]);
    const leftOut = await waitFor(
      () => {
        const ours = failed().filter((r) => r.data.template === 'new-customers');
        return ours.length >= 2 ? ours : undefined;
      },
      { what: 'the suppressed members’ new-customers results' },
    );
    expect(new Set(leftOut.map((r) => r.sourceeventid))).toEqual(
      new Set([unsubscribed.id, bounced.id]),
    );
    expect(leftOut.every((r) => r.data.reasonCode === 'SUPPRESSED')).toBe(true);
  });

  it('sends a partly suppressed campaign command to the others and counts the rest', async () => {
    const result = await waitFor(() => sent().find((r) => r.sourceeventid === campaign.id), {
      what: "the campaign command's result",
    });
    expect(result.data).toMatchObject({ recipientCount: 1, suppressedCount: 1 });
    expect(JSON.stringify(result)).not.toContain(ada.email);
    expect(campaignRecipients()).toContain(bob.email);
    expect(campaignRecipients()).not.toContain(ada.email);
  });

  it('dead-letters malformed suppression commands with codes, as every other type, and stores nothing of them', async () => {
    const good = suppression(`${run}-bad`, `bad@${run}.example.com`, 'unsubscribed', 'all');
    const bad: Array<[key: string, value: unknown, code: string]> = [
      [
        'unknown-field',
        { ...good, id: `${run}-b1`, data: { ...good.data, note: 'x' } },
        'UNKNOWN_FIELD',
      ],
      [
        'bad-reason',
        { ...good, id: `${run}-b2`, data: { ...good.data, reason: 'bored' } },
        'INVALID',
      ],
      ['bad-scope', { ...good, id: `${run}-b3`, data: { ...good.data, scope: 'some' } }, 'INVALID'],
      [
        'no-address',
        { ...good, id: `${run}-b4`, data: { ...good.data, address: 'nobody' } },
        'INVALID',
      ],
      ['wrong-topic', { ...campaign, id: `${run}-b5` }, 'WRONG_TOPIC'],
    ];
    await produce(
      fixture.kafka,
      fixture.topics.TOPIC_SUPPRESSION_REQUESTED,
      bad.map(([key, value]) => ({ key, value: JSON.stringify(value) })),
    );
    const letters = await waitFor(
      () => {
        const all = fixture.collector.messages.filter(
          (m) => m.topic === fixture.topics.TOPIC_DEAD_LETTER,
        );
        return all.length >= bad.length ? all : undefined;
      },
      { what: 'five dead letters' },
    );
    for (const [key, , code] of bad) {
      const letter = letters.find((l) => l.key?.toString() === key);
      expect([key, readDeadLetterHeaders(letter!.headers)?.errorCode]).toEqual([key, code]);
    }
    expect(
      await redis.hget(suppressionKey, `all:${keyer.of(`bad@${run}.example.com`)}`),
    ).toBeNull();
  });

  it('leaves nothing of an erased address in Redis but its keyed hash', async () => {
    const address = email(erased);
    const hash = keyer.of(address);
    // Its member waits in the open window first: erasure has something to remove.
    await waitFor(
      async () => {
        const all = [...(await contentsOf(redis, fixture.keyPrefix)).values()];
        return all.some((text) => text.includes(address)) ? true : undefined;
      },
      { what: 'the member in its open window', intervalMs: 250 },
    );
    await fixture.publish(
      'TOPIC_SUPPRESSION_REQUESTED',
      // `marketing` as sent; an erasure suppresses every category all the same.
      [suppression(`${run}-erase`, address, 'erased', 'marketing')],
      (e) => e.id,
    );
    await waitFor(
      async () =>
        (await redis.hget(suppressionKey, `all:${hash}`)) === 'erased' ? true : undefined,
      { what: 'the erasure on the list' },
    );
    const contents = await contentsOf(redis, fixture.keyPrefix);
    const withAddress = [...contents.keys()].filter((k) =>
      contents.get(k)!.toLowerCase().includes(address.toLowerCase()),
    );
    expect(withAddress).toEqual([]);
    // Where its hash is: the list's entry, and the windowed order that finds its result by it.
    const withHash = [...contents.keys()].filter((k) => contents.get(k)!.includes(hash)).sort();
    expect(withHash).toContain(suppressionKey);
    expect(withHash.every((k) => k === suppressionKey || /win:r:/.test(k))).toBe(true);
    expect(await redis.hget(suppressionKey, `marketing:${hash}`)).toBeNull();
    // The window's list no longer holds the member.
    const window = [...contents.keys()].filter((k) => /win:m:/.test(k));
    for (const key of window) expect(await redis.hexists(key, address.toLowerCase())).toBe(0);
  });
});
