import type { KafkaMessage } from 'kafkajs';
import { DLT_HEADERS } from '../../src/contracts/dead-letter-headers';
import type { EmailCampaignSentV1 } from '../../src/contracts/email-campaign-sent.v1';
import type { EmailContactListCreatedV1 } from '../../src/contracts/email-contact-list-created.v1';
import {
  EVENT_OF,
  TOPICS,
  encode,
  type CorpusEvent,
  type CorpusTopic,
  type ProducedRecord,
} from '../hostile/valid-events';
import { produce, uniqueName, waitFor } from '../support/kafka-helpers';
import { decodeResult } from '../support/result-events';
import { PipelineFixture, type Topics } from '../support/service-harness';
import type { CampaignRequest, ContactListRequest } from '../../src/email-api/vendor.types';

jest.setTimeout(180_000);

const TOPIC_OF: Readonly<Record<CorpusTopic, keyof Topics>> = {
  signup: 'TOPIC_USER_SIGNED_UP',
  order: 'TOPIC_ORDER_PLACED',
  campaign: 'TOPIC_CAMPAIGN_REQUESTED',
  contactList: 'TOPIC_CONTACT_LIST_REQUESTED',
};
const BINARY_HEADERS = [
  'ce_id',
  'ce_source',
  'ce_sourceeventid',
  'ce_specversion',
  'ce_time',
  'ce_type',
];
/** The dead-letter header that names the error code. */
const ERROR_CODE_HEADER = DLT_HEADERS.errorCode;
/** The dead-letter header that says why, naming the attribute. */
const ERROR_MESSAGE_HEADER = DLT_HEADERS.exceptionMessage;

type Result = EmailCampaignSentV1 | EmailContactListCreatedV1;
interface Sent {
  topic: CorpusTopic;
  id: string;
  record: ProducedRecord;
}

/**
 * The CloudEvents Kafka protocol binding on the real broker, both ways: each inbound type in
 * structured and binary mode gets its results; every result, in the configured mode, is read by
 * the CloudEvents SDK (`Kafka.toEvent`) with the inbound id as `sourceeventid`; an event of
 * another `specversion` or without `source` is dead-lettered with its code and sent nowhere.
 */
describe.each([
  { mode: 'binary' as const, source: undefined },
  { mode: 'structured' as const, source: '//test.example/mailbridge' },
])('CloudEvents on the real broker, results in $mode mode', ({ mode, source }) => {
  const fixture = new PipelineFixture();
  const run = uniqueName(`ce-${mode}`);
  const good: Sent[] = TOPICS.flatMap((topic) =>
    (['structured', 'binary'] as const).map((encoding) => {
      const id = `${run}-${topic}-${encoding}`;
      // An extension attribute travels with each: accepted, not a reason to refuse.
      const event = { ...EVENT_OF[topic](id), tenant: 'eu-1' };
      return { topic, id, record: encode(event, encoding) };
    }),
  );
  const bad = (['structured', 'binary'] as const).flatMap((encoding) => [
    badEvent(`${run}-specversion-${encoding}`, encoding, (e) => (e.specversion = '9.9')),
    badEvent(`${run}-no-source-${encoding}`, encoding, (e) => delete e.source),
  ]);

  beforeAll(async () => {
    await fixture.start();
    await fixture.startService({
      CONTACT_LIST_WINDOW_MS: '1000',
      BATCH_LINGER_MS: '200',
      RESULT_EVENT_MODE: mode,
      ...(source ? { RESULT_EVENT_SOURCE: source } : {}),
    });
    for (const { topic, id, record } of [...good, ...bad]) {
      await produce(fixture.kafka, fixture.topics[TOPIC_OF[topic]], [
        { key: id, value: record.value!, headers: record.headers as Record<string, string> },
      ]);
    }
  });
  afterAll(() => fixture.stop());

  const resultRecords = () =>
    fixture.collector.messages.filter(
      (m) =>
        m.topic === fixture.topics.TOPIC_CAMPAIGN_SENT ||
        m.topic === fixture.topics.TOPIC_CONTACT_LIST_CREATED,
    );

  it('answers each inbound type, sent in structured and in binary mode, with its results', async () => {
    const t = fixture.topics;
    // Sign-ups and campaign commands are sent; orders are sent and listed; list commands listed.
    const expected = (topic: string) => (r: Sent) =>
      topic === t.TOPIC_CAMPAIGN_SENT
        ? r.topic !== 'contactList'
        : ['order', 'contactList'].includes(r.topic);
    const answered = (topic: string) =>
      new Set(fixture.collector.results<Result>(topic).map((r) => r.sourceeventid));
    await waitFor(
      () =>
        [t.TOPIC_CAMPAIGN_SENT, t.TOPIC_CONTACT_LIST_CREATED].every((topic) =>
          good.filter(expected(topic)).every((g) => answered(topic).has(g.id)),
        ) || undefined,
      { timeoutMs: 90_000, what: 'a result for every inbound event' },
    );
    expect(fixture.collector.count(t.TOPIC_DISPATCH_FAILED)).toBe(0);
    const sourceIds = new Set(good.map((g) => g.id));
    for (const result of fixture.collector.results<Result>(t.TOPIC_CAMPAIGN_SENT)) {
      expect(sourceIds.has(result.sourceeventid)).toBe(true);
      expect(result.data.sourceEventId).toBe(result.sourceeventid);
    }
  });

  it(`writes every result as a ${mode}-mode CloudEvent the SDK reads, sourceeventid the inbound id`, () => {
    const records = resultRecords();
    expect(records.length).toBeGreaterThanOrEqual(good.length + 2);
    const byId = new Map(good.map((g) => [g.id, g]));
    for (const record of records) {
      const header = (name: string) => record.headers?.[name]?.toString();
      const result = decodeResult<Result & Record<string, unknown>>(record);
      const inbound = byId.get(result.sourceeventid);
      expect(inbound).toBeDefined();
      expect(result).toMatchObject({
        specversion: '1.0',
        id: expect.stringMatching(/^[0-9a-f]{32}$/) as string,
        source: source ?? 'mailbridge',
        type:
          record.topic === fixture.topics.TOPIC_CAMPAIGN_SENT
            ? 'email.campaign.sent.v1'
            : 'email.contact_list.created.v1',
        datacontenttype: 'application/json',
        data: { sourceEventId: inbound!.id, sourceEventType: typeOf(inbound!) },
      });
      // Inbound extensions are not carried to results.
      expect(result).not.toHaveProperty('tenant');
      const wire = {
        ceHeaders: Object.keys(record.headers ?? {})
          .filter((h) => h.startsWith('ce_'))
          .sort(),
        contentType: header('content-type'),
        sourceEventIdHeader: header('ce_sourceeventid'),
        value: JSON.parse(record.value!.toString()) as unknown,
      };
      expect(wire).toEqual(
        mode === 'binary'
          ? {
              ceHeaders: BINARY_HEADERS,
              contentType: 'application/json',
              sourceEventIdHeader: inbound!.id,
              value: result.data,
            }
          : {
              ceHeaders: [],
              contentType: 'application/cloudevents+json; charset=utf-8',
              sourceEventIdHeader: undefined,
              value: result,
            },
      );
      expect(record.key?.toString()).toBe(inbound!.id);
    }
  });

  it('dead-letters specversion 9.9 and a missing source with INVALID_CLOUDEVENT, and sends them nowhere', async () => {
    const letters = await waitFor(
      () => {
        const l = fixture.collector.messages.filter(
          (m) => m.topic === fixture.topics.TOPIC_DEAD_LETTER,
        );
        return l.length >= bad.length ? l : undefined;
      },
      { what: 'the dead letters of the bad events' },
    );
    expect(letters).toHaveLength(bad.length);
    for (const b of bad) {
      const letter = letters.find((l: KafkaMessage) => l.key?.toString() === b.id);
      expect(letter?.headers?.[ERROR_CODE_HEADER]?.toString()).toBe('INVALID_CLOUDEVENT');
      const attribute = b.id.includes('-specversion-') ? 'specversion' : 'source';
      expect(letter?.headers?.[ERROR_MESSAGE_HEADER]?.toString()).toContain(attribute);
      expect(letter?.value?.equals(b.record.value!)).toBe(true);
    }
    const badIds = new Set(bad.map((b) => b.id));
    const answered = resultRecords().map((r) => decodeResult<Result>(r).sourceeventid);
    expect(answered.filter((id) => badIds.has(id))).toEqual([]);
    const badAddress = (address: string) => bad.some((b) => address.startsWith(b.id));
    for (const request of fixture.sandbox.requests) {
      const addresses = request.path.endsWith('/email/campaign')
        ? (request.body as CampaignRequest).recipients.to.map((to) => to.email)
        : ((request.body as ContactListRequest).members ?? []).map((m) => m.email);
      expect(addresses.filter(badAddress)).toEqual([]);
    }
  });
});

/** A valid sign-up, changed by `change`, as a producer using `encoding` would write it. */
function badEvent(
  id: string,
  encoding: 'structured' | 'binary',
  change: (event: Partial<CorpusEvent> & Record<string, unknown>) => void,
): Sent {
  const event: Partial<CorpusEvent> & Record<string, unknown> = { ...EVENT_OF.signup(id) };
  change(event);
  return { topic: 'signup', id, record: encode(event as CorpusEvent, encoding) };
}

function typeOf(sent: Sent): string {
  return EVENT_OF[sent.topic](sent.id).type;
}
