import type { EmailCampaignSentV1 } from '../../src/contracts/email-campaign-sent.v1';
import type { CampaignRequest } from '../../src/email-api/vendor.types';
import { MetricsService } from '../../src/metrics/metrics.service';
import { order, signUp } from '../support/events';
import { uniqueName, waitFor } from '../support/kafka-helpers';
import { PipelineFixture } from '../support/service-harness';

jest.setTimeout(120_000);

/** Sign-ups: the locale each asks for, and the copy it must get. */
const SIGN_UPS: Array<[string | undefined, string]> = [
  ['de-AT', 'de'],
  ['de-AT', 'de'],
  ['fr', 'fr'],
  ['fr-CA', 'fr'],
  ['es', 'es'],
  ['ar', 'ar'],
  ['ja', 'ja'],
  ['ja-JP', 'ja'],
  ['xx', 'en'], // unknown: the default copy, counted
  ['de_AT', 'en'], // malformed: the default copy, counted
  [undefined, 'en'], // none asked: the default copy, not counted
];

/** Orders: the customer's locale and zone, and the copy it must get. */
const ORDERS: Array<[string, string | undefined, string]> = [
  ['de-DE', 'Europe/Berlin', 'de'],
  ['de', undefined, 'de'],
  ['ja', 'Asia/Tokyo', 'ja'],
  ['en-US', 'Mars/Olympus_Mons', 'en'], // a zone not known here: TEMPLATE_TIME_ZONE, counted
];

/** What a subject of each (template, locale) copy begins with, the brand merged. */
const SUBJECTS: Record<string, string> = {
  'welcome-v1 de': 'Willkommen bei Example Shop, ',
  'welcome-v1 fr': 'Bienvenue chez Example Shop, ',
  'welcome-v1 es': 'Te damos la bienvenida a Example Shop, ',
  'welcome-v1 ar': 'مرحبًا بك في Example Shop، ',
  'welcome-v1 ja': '{{FIRST_NAME}}様、Example Shopへようこそ',
  'welcome-v1 en': 'Welcome to Example Shop, ',
  'order-confirmation-v1 de': 'Ihre Bestellung {{ORDER_ID}} bei Example Shop ist bestätigt',
  'order-confirmation-v1 ja': 'Example Shop：ご注文 {{ORDER_ID}} を承りました',
  'order-confirmation-v1 en': 'Your Example Shop order {{ORDER_ID}} is confirmed',
};

describe('locales: each reader gets the copy of their locale, one request per copy', () => {
  const fixture = new PipelineFixture();
  const run = uniqueName('locales');
  const signUps = SIGN_UPS.map(([locale], i) => {
    const event = signUp(i, run);
    return { ...event, data: { ...event.data, ...(locale ? { locale } : {}) } };
  });
  // Placed in a window of the past, so that their contact list is created at once.
  const placedAt = new Date(Math.floor(Date.now() / 60_000) * 60_000 - 600_000).toISOString();
  const orders = ORDERS.map(([locale, timeZone], i) => {
    const event = order(i, run, placedAt);
    const customer = { ...event.data.customer, locale, ...(timeZone ? { timeZone } : {}) };
    return { ...event, data: { ...event.data, customer } };
  });
  /** Every event's id → the copy it must get. */
  const expected = new Map<string, string>([
    ...signUps.map((e, i): [string, string] => [e.id, SIGN_UPS[i][1]]),
    ...orders.map((e, i): [string, string] => [e.id, ORDERS[i][2]]),
  ]);
  let metrics: MetricsService;

  beforeAll(async () => {
    await fixture.start();
    await fixture.publish('TOPIC_USER_SIGNED_UP', signUps, (e) => e.data.userId);
    await fixture.publish('TOPIC_ORDER_PLACED', orders, (e) => e.data.orderId);
    const app = await fixture.startService({
      CONTACT_LIST_WINDOW_MS: '60000',
      // Every event is on the topics before the service starts: all of a copy's recipients
      // meet in one batch well within the linger.
      BATCH_LINGER_MS: '3000',
    });
    metrics = app.get(MetricsService);
  });
  afterAll(() => fixture.stop());

  /** The campaign requests the vendor received, by `<campaignId> <lang of the body>`. */
  function requestsByCopy(): Map<string, Array<{ body: CampaignRequest; requestId: string }>> {
    const byCopy = new Map<string, Array<{ body: CampaignRequest; requestId: string }>>();
    for (const r of fixture.sandbox.requests.filter((x) => x.path.endsWith('/email/campaign'))) {
      const body = r.body as CampaignRequest;
      const lang = /<html lang="([^"]+)"/.exec(body.body ?? '')?.[1] ?? '?';
      const key = `${body.campaignId} ${lang}`;
      const requestId = (r.response as { requestId: string }).requestId;
      byCopy.set(key, [...(byCopy.get(key) ?? []), { body, requestId }]);
    }
    return byCopy;
  }

  /**
   * The sent results, each once: a record delivered again (a rebalance as the consumer joins)
   * publishes its result again under the same CloudEvent id, which consumers deduplicate by.
   */
  function sentResults(): EmailCampaignSentV1[] {
    const all = fixture.collector.results<EmailCampaignSentV1>(fixture.topics.TOPIC_CAMPAIGN_SENT);
    return [...new Map(all.map((r) => [r.id, r])).values()];
  }

  it('answers every event with the locale of the copy it was sent', async () => {
    const sent = await waitFor(
      () => {
        const r = sentResults();
        return r.length >= expected.size ? r : undefined;
      },
      { what: 'a sent result for every sign-up and order' },
    );
    expect(sent).toHaveLength(expected.size);
    const locales = new Map(sent.map((r) => [r.sourceeventid, r.data.locale]));
    expect(locales).toEqual(expected);
  });

  it('sends one request per (template, locale), carrying that copy and its readers only', () => {
    const byCopy = requestsByCopy();
    expect(new Set(byCopy.keys())).toEqual(new Set(Object.keys(SUBJECTS)));
    for (const [copy, requests] of byCopy) {
      expect({ copy, requests: requests.length }).toEqual({ copy, requests: 1 });
      expect(requests[0].body.subject?.startsWith(SUBJECTS[copy])).toBe(true);
    }
    const [arabic] = byCopy.get('welcome-v1 ar')!;
    expect(arabic.body.body).toContain('<html lang="ar" dir="rtl">');

    // Each request carries exactly the readers whose copy it is, and their results name it.
    const sent = sentResults();
    const emailOf = new Map<string, string>([
      ...signUps.map((e): [string, string] => [e.id, e.data.email]),
      ...orders.map((e): [string, string] => [e.id, e.data.customer.email]),
    ]);
    for (const [copy, [request]] of byCopy) {
      const [campaignId, locale] = copy.split(' ');
      const template = campaignId.replace(/-v1$/, '');
      const readers = sent.filter((r) => r.data.template === template && r.data.locale === locale);
      expect(request.body.recipients.to.map((to) => to.email).sort()).toEqual(
        readers.map((r) => emailOf.get(r.sourceeventid)).sort(),
      );
      for (const r of readers) expect(r.data.requestId).toBe(request.requestId);
    }
  });

  it("writes an order's money and date as its reader does, on the reader's calendar", () => {
    const recipients = fixture.sandbox.requests
      .filter((r) => r.path.endsWith('/email/campaign'))
      .flatMap((r) => (r.body as CampaignRequest).recipients.to);
    const attributesOf = (i: number) =>
      recipients.find((to) => to.email === orders[i].data.customer.email)?.attributes;
    const day = (locale: string, timeZone: string) =>
      new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeZone }).format(new Date(placedAt));
    // order(i) totals i.50 EUR.
    expect(attributesOf(0)).toMatchObject({
      TOTAL: '0,50\u00a0€',
      PLACED_AT: day('de-DE', 'Europe/Berlin'),
    });
    expect(attributesOf(2)).toMatchObject({ TOTAL: '€2.50', PLACED_AT: day('ja', 'Asia/Tokyo') });
    expect(attributesOf(3)).toMatchObject({ TOTAL: '€3.50', PLACED_AT: day('en-US', 'UTC') });
  });

  it('counts the unknown and the malformed locale, and the default asked for not at all', async () => {
    const { values } = await metrics.localeFallbacks.get();
    // Counted each time an event is planned: a record delivered again (one rebalance or more as
    // the consumer joins) counts again, so the count is at least one, not exactly one.
    const seen = (value: number) => value >= 1;
    const counted = values.map((v) => ({ ...v.labels, counted: seen(v.value) }));
    expect(counted).toEqual(
      expect.arrayContaining([
        { template: 'welcome', reason: 'unknown', counted: true },
        { template: 'welcome', reason: 'malformed', counted: true },
      ]),
    );
    expect(counted).toHaveLength(2);
    const zones = await metrics.timeZoneFallbacks.get();
    expect(zones.values.map((v) => ({ ...v.labels, counted: seen(v.value) }))).toEqual([
      { template: 'order-confirmation', counted: true },
    ]);
  });
});
