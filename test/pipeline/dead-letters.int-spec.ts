import { readDeadLetterHeaders } from '../../src/contracts/dead-letter-headers';
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
        const s = fixture.collector.results<EmailCampaignSentV1>(
          fixture.topics.TOPIC_CAMPAIGN_SENT,
        );
        return s.length >= good.length ? s : undefined;
      },
      { what: 'results of the good events' },
    );
    expect(new Set(sent.map((s) => s.sourceeventid))).toEqual(new Set(good.map((g) => g.id)));
    expect(dead).toHaveLength(bad.length);

    for (const b of bad) {
      const letter = dead.find((d) => d.key?.toString() === b.key);
      expect(letter).toBeDefined();
      const h = (name: string) => letter!.headers?.[name]?.toString();
      expect(letter!.value?.toString()).toBe(b.value);
      expect(h('x-origin')).toBe('test-suite');
      // Spring Kafka's names and binary encoding, decoded as a Spring-based tool would.
      const info = readDeadLetterHeaders(letter!.headers)!;
      expect(info.originalTopic).toBe(fixture.topics.TOPIC_USER_SIGNED_UP);
      expect(letter!.headers?.['kafka_dlt-original-partition']).toHaveLength(4);
      expect(letter!.headers?.['kafka_dlt-original-offset']).toHaveLength(8);
      expect(info.originalPartition).toBeGreaterThanOrEqual(0);
      expect(BigInt(info.originalOffset)).toBeGreaterThanOrEqual(0n);
      expect(Number(info.originalTimestamp)).toBeGreaterThan(Date.now() - 600_000);
      expect(info.originalTimestampType).toBe('CreateTime');
      expect(info.originalConsumerGroup).toBe(fixture.groupId);
      expect(info.exceptionFqcn).toBe(`mailbridge.InvalidEventError.${b.code}`);
      expect(info.errorCode).toBe(b.code);
      expect(info.exceptionMessage).toBeTruthy();
      expect(Object.keys(letter!.headers ?? {}).filter((n) => n.startsWith('dlq-'))).toEqual([]);
    }
    // The error message names the broken fields, never the values in them.
    const schemaLetter = dead.find((d) => d.key?.toString() === 'bad-schema')!;
    const schemaMessage = schemaLetter.headers?.['kafka_dlt-exception-message']?.toString();
    expect(schemaMessage).toContain('data.email');
    expect(schemaMessage).not.toContain('not-an-email');
    // Bad input never reached the vendor.
    const emails = fixture.sandbox.requests.flatMap((r) =>
      (r.body as { recipients: { to: Array<{ email: string }> } }).recipients.to.map(
        (t) => t.email,
      ),
    );
    expect(emails.sort()).toEqual(good.map((g) => g.data.email).sort());
  });
});
