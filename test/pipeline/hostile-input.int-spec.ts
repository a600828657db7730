import { CompressionTypes, Partitioners, type IHeaders, type KafkaMessage } from 'kafkajs';
import { DLT_HEADERS } from '../../src/contracts/dead-letter-headers';
import type { EmailCampaignSentV1 } from '../../src/contracts/email-campaign-sent.v1';
import type { EmailContactListCreatedV1 } from '../../src/contracts/email-contact-list-created.v1';
import type { EmailDispatchFailedV1 } from '../../src/contracts/email-dispatch-failed.v1';
import { ConsumerStatus } from '../../src/inbound/consumer-status';
import type { CampaignRequest, ContactListRequest } from '../../src/email-api/vendor.types';
import { HOSTILE_CORPUS, type HostileCase } from '../hostile/corpus';
import {
  interleavedValidEvents,
  type CorpusTopic,
  type ProducedRecord,
} from '../hostile/valid-events';
import { uniqueName, waitFor } from '../support/kafka-helpers';
import { seededRandom } from '../support/seeded-random';
import { PipelineFixture, type Topics } from '../support/service-harness';

jest.setTimeout(300_000);

const TOPIC_OF: Record<CorpusTopic, keyof Topics> = {
  signup: 'TOPIC_USER_SIGNED_UP',
  order: 'TOPIC_ORDER_PLACED',
  campaign: 'TOPIC_CAMPAIGN_REQUESTED',
  contactList: 'TOPIC_CONTACT_LIST_REQUESTED',
};
/** Results a valid event of each topic gets: one per template for its type. */
const TEMPLATES_OF: Record<CorpusTopic, string[]> = {
  signup: ['welcome'],
  order: ['new-customers', 'order-confirmation'],
  campaign: ['campaign-command'],
  contactList: ['contact-list-command'],
};
const CASE_HEADER = 'corpus-case';

interface Produced extends ProducedRecord {
  topic: CorpusTopic;
  /** The event id a valid record's results carry; undefined for a hostile one. */
  validId?: string;
  hostile?: { index: number; expect: HostileCase['expect'] };
}

/**
 * The hostile-input corpus, produced as raw bytes to the real broker between 500 valid events in
 * all three encodings: every hostile record reaches its expected outcome, every valid event gets
 * exactly one result per template, nothing unchecked reaches the vendor, and the consumer never
 * restarts.
 */
describe('hostile input: nothing blocks a partition, nothing reaches the vendor unchecked', () => {
  const fixture = new PipelineFixture();
  const run = uniqueName('hostile');
  const records = interleave(HOSTILE_CORPUS, interleavedValidEvents(125, run));
  const validIds = new Set(records.flatMap((r) => (r.validId ? [r.validId] : [])));
  const hostile = records.filter((r) => r.hostile);
  let status: ConsumerStatus;
  let peakRss = 0;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 200);

  beforeAll(async () => {
    await fixture.start();
    const app = await fixture.startService({
      CONTACT_LIST_WINDOW_MS: '2000',
      BATCH_LINGER_MS: '200',
    });
    status = app.get(ConsumerStatus);
    await produceRaw(fixture, records);
  });
  afterAll(async () => {
    clearInterval(sampler);
    await fixture.stop();
  });

  it('gives every hostile record the outcome the corpus expects', async () => {
    const expectedLetters = hostile.filter((r) => 'deadLetter' in r.hostile!.expect).length;
    const deadLetters = () =>
      fixture.collector.messages.filter((m) => m.topic === fixture.topics.TOPIC_DEAD_LETTER);
    // On a timeout, compare what did arrive: the mismatches say which kinds went astray.
    await waitFor(() => deadLetters().length >= expectedLetters || undefined, {
      what: `${expectedLetters} dead letters`,
      timeoutMs: 180_000,
    }).catch(() => undefined);
    const letters = deadLetters();
    const codeOf = new Map<number, string[]>();
    for (const letter of letters) {
      const index = Number(headerText(letter.headers, CASE_HEADER));
      codeOf.set(index, [
        ...(codeOf.get(index) ?? []),
        headerText(letter.headers, DLT_HEADERS.errorCode) ?? '?',
      ]);
    }
    const mismatches = hostile.flatMap(({ hostile: h }) => {
      const { kind } = HOSTILE_CORPUS[h!.index];
      const want = 'deadLetter' in h!.expect ? [h!.expect.deadLetter] : [];
      const got = codeOf.get(h!.index) ?? [];
      return JSON.stringify(got) === JSON.stringify(want)
        ? []
        : [`${kind}: want ${want.join() || 'no dead letter'}, got ${got.join() || 'none'}`];
    });
    expect(mismatches).toEqual([]);
  });

  it('answers every valid event exactly once per template, with no failure', async () => {
    const validCount = records
      .filter((r) => r.validId)
      .reduce((n, r) => n + TEMPLATES_OF[r.topic].length, 0);
    const results = await waitFor(
      () => {
        const found = [
          ...fixture.collector.results<EmailCampaignSentV1>(fixture.topics.TOPIC_CAMPAIGN_SENT),
          ...fixture.collector.results<EmailContactListCreatedV1>(
            fixture.topics.TOPIC_CONTACT_LIST_CREATED,
          ),
        ];
        return found.length >= validCount ? found : undefined;
      },
      { what: `${validCount} results`, timeoutMs: 180_000 },
    );
    const perAction = new Map<string, number>();
    for (const r of results) {
      const key = `${r.sourceeventid}/${r.data.template}`;
      perAction.set(key, (perAction.get(key) ?? 0) + 1);
    }
    const expected = records.flatMap((r) =>
      r.validId ? TEMPLATES_OF[r.topic].map((t) => `${r.validId}/${t}`) : [],
    );
    expect([...perAction.keys()].sort()).toEqual(expected.sort());
    expect([...perAction.values()].every((n) => n === 1)).toBe(true);
    const failed = fixture.collector.results<EmailDispatchFailedV1>(
      fixture.topics.TOPIC_DISPATCH_FAILED,
    );
    expect(failed.map((f) => `${f.sourceeventid}: ${f.data.errorCode}`)).toEqual([]);
  });

  it('sent the vendor only what came from valid events, each address once per request', () => {
    // Every address of every valid record, found wherever it sits in the event.
    const allowed = new Set(
      records.filter((r) => r.validId).flatMap((r) => addressesIn(JSON.parse(r.value!.toString()))),
    );
    const validAddresses = (address: string) => allowed.has(address);
    for (const request of fixture.sandbox.requests) {
      const addresses = request.path.endsWith('/email/campaign')
        ? (request.body as CampaignRequest).recipients.to.map((t) => t.email)
        : ((request.body as ContactListRequest).members ?? []).map((m) => m.email);
      expect(addresses.filter((a) => !validAddresses(a))).toEqual([]);
      expect(new Set(addresses.map((a) => a.toLowerCase())).size).toBe(addresses.length);
    }
  });

  it('never restarted the consumer', () => {
    expect(status.crashCount).toBe(0);
    const byCode = new Map<string, number>();
    for (const { hostile: h } of hostile) {
      const code = 'deadLetter' in h!.expect ? h!.expect.deadLetter : 'valid (sent)';
      byCode.set(code, (byCode.get(code) ?? 0) + 1);
    }
    const codes = [...byCode]
      .sort()
      .map(([code, n]) => `${code} ${n}`)
      .join(', ');
    process.stdout.write(
      `[figures] hostile corpus: ${hostile.length} kinds (${codes}); ` +
        `${validIds.size} valid events, all answered once per template; ` +
        `consumer restarts ${status.crashCount}; peak RSS ${(peakRss / 2 ** 20).toFixed(0)} MiB\n`,
    );
  });
});

/** The corpus spread between the valid events, in an order fixed by a seed. */
function interleave(
  corpus: readonly HostileCase[],
  valid: Array<ProducedRecord & { topic: CorpusTopic; id: string }>,
): Produced[] {
  const random = seededRandom(9);
  const out: Produced[] = valid.map(({ id, ...record }) => ({ ...record, validId: id }));
  corpus.forEach((c, index) => {
    const record: Produced = {
      topic: c.topic,
      value: c.value,
      key: c.key ?? `case-${index}`,
      headers: { ...c.headers, [CASE_HEADER]: String(index) },
      hostile: { index, expect: c.expect },
    };
    // A valid corpus case is a valid event: its results are counted with the others.
    if ('valid' in c.expect) record.validId = idOf(c);
    out.splice(Math.floor(random() * (out.length + 1)), 0, record);
  });
  return out;
}

/** The id of a valid case's event: in its JSON, or in its `ce_id` header (binary mode). */
function idOf(c: HostileCase): string {
  const header = c.headers?.ce_id;
  if (header !== undefined) return header.toString();
  return (JSON.parse(c.value!.toString()) as { id: string }).id;
}

/** Produces the records in order, as bytes, a few at a time (as neighbours' producers would). */
async function produceRaw(fixture: PipelineFixture, records: Produced[]): Promise<void> {
  const producer = fixture.kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  try {
    for (let i = 0; i < records.length; i += 20) {
      const slice = records.slice(i, i + 20);
      const byTopic = new Map<
        string,
        Array<{ key: Buffer | string | null; value: Buffer | null; headers?: IHeaders }>
      >();
      for (const r of slice) {
        const topic = fixture.topics[TOPIC_OF[r.topic]];
        byTopic.set(topic, [
          ...(byTopic.get(topic) ?? []),
          { key: r.key ?? null, value: r.value, headers: r.headers },
        ]);
      }
      await producer.sendBatch({
        acks: -1,
        compression: CompressionTypes.None,
        topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })),
      });
    }
  } finally {
    await producer.disconnect();
  }
}

function addressesIn(value: unknown): string[] {
  if (typeof value === 'string') return value.includes('@') ? [value] : [];
  if (typeof value !== 'object' || value === null) return [];
  return Object.values(value).flatMap(addressesIn);
}

function headerText(headers: KafkaMessage['headers'], name: string): string | undefined {
  const value = headers?.[name];
  const first = Array.isArray(value) ? value[0] : value;
  return first?.toString();
}
