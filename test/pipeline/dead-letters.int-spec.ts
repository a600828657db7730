import type { EmailCampaignSentV1 } from '../../src/contracts/email-campaign-sent.v1';
import { signUp } from '../support/events';
import { produce, uniqueName, waitFor } from '../support/kafka-helpers';
import { PipelineFixture } from '../support/service-harness';

jest.setTimeout(120_000);

describe('bad input goes to the dead-letter topic and never blocks good input', () => {
  const fixture = new PipelineFixture();
  const run = uniqueName('dlq');

  beforeAll(async () => {
    await fixture.start();
    await fixture.startService({ MAX_EVENT_BYTES: '4096' });
  });
  afterAll(() => fixture.stop());

  it('dead-letters each bad record with its original bytes and error headers', async () => {
    const good = Array.from({ length: 20 }, (_, i) => signUp(i, run));
    const invalid = {
      ...signUp(100, run),
      data: { userId: 'u-x', email: 'not-an-email', name: '' },
    };
    const bad = [
      { key: 'bad-json', value: '{"id": "broken', code: 'UNPARSEABLE' },
      { key: 'bad-schema', value: JSON.stringify(invalid), code: 'INVALID' },
      {
        key: 'bad-type',
        value: JSON.stringify({ ...signUp(101, run), type: 'user.deleted.v9' }),
        code: 'UNKNOWN_TYPE',
      },
      {
        key: 'bad-size',
        value: JSON.stringify({ ...signUp(102, run), padding: 'x'.repeat(5000) }),
        code: 'OVERSIZED',
      },
    ];
    // Bad records interleaved with good ones, all on one partition (same key would be needed
    // for ordering; here the point is that nothing after a bad record is held up).
    const records = [
      ...good.slice(0, 10).map((e) => ({ key: e.data.userId, value: JSON.stringify(e) })),
      ...bad.map((b) => ({ key: b.key, value: b.value, headers: { 'x-origin': 'test-suite' } })),
      ...good.slice(10).map((e) => ({ key: e.data.userId, value: JSON.stringify(e) })),
    ];
    await produce(fixture.kafka, fixture.topics.TOPIC_USER_SIGNED_UP, records);

    const dead = await waitFor(
      () => {
        const d = fixture.collector.messages.filter(
          (m) => m.topic === fixture.topics.TOPIC_DEAD_LETTER,
        );
        return d.length >= bad.length ? d : undefined;
      },
      { what: 'dead letters' },
    );
    const sent = await waitFor(
      () => {
        const s = fixture.collector.json<EmailCampaignSentV1>(fixture.topics.TOPIC_CAMPAIGN_SENT);
        return s.length >= good.length ? s : undefined;
      },
      { what: 'results of the good events' },
    );
    expect(new Set(sent.map((s) => s.correlationId))).toEqual(new Set(good.map((g) => g.id)));
    expect(dead).toHaveLength(bad.length);

    for (const b of bad) {
      const letter = dead.find((d) => d.key?.toString() === b.key);
      expect(letter).toBeDefined();
      const h = (name: string) => letter!.headers?.[name]?.toString();
      expect(letter!.value?.toString()).toBe(b.value);
      expect(h('x-origin')).toBe('test-suite');
      expect(h('dlq-original-topic')).toBe(fixture.topics.TOPIC_USER_SIGNED_UP);
      expect(Number(h('dlq-original-partition'))).toBeGreaterThanOrEqual(0);
      expect(Number(h('dlq-original-offset'))).toBeGreaterThanOrEqual(0);
      expect(Number(h('dlq-original-timestamp'))).toBeGreaterThan(0);
      expect(h('dlq-error-class')).toBe('InvalidEventError');
      expect(h('dlq-error-code')).toBe(b.code);
      expect(h('dlq-error-message')).toBeTruthy();
    }
    // The error message names the broken fields, never the values in them.
    const schemaLetter = dead.find((d) => d.key?.toString() === 'bad-schema')!;
    expect(schemaLetter.headers?.['dlq-error-message']?.toString()).toContain('data.email');
    expect(schemaLetter.headers?.['dlq-error-message']?.toString()).not.toContain('not-an-email');
    // Bad input never reached the vendor.
    const emails = fixture.sandbox.requests.flatMap((r) =>
      (r.body as { recipients: { to: Array<{ email: string }> } }).recipients.to.map(
        (t) => t.email,
      ),
    );
    expect(emails.sort()).toEqual(good.map((g) => g.data.email).sort());
  });
});
