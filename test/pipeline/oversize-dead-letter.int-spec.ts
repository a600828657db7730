import type { INestApplication } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { ConfigResourceTypes, Partitioners, type Kafka, type KafkaMessage } from 'kafkajs';
import { readDeadLetterHeaders } from '../../src/contracts/dead-letter-headers';
import type { EmailCampaignSentV1 } from '../../src/contracts/email-campaign-sent.v1';
import { ConsumerStatus } from '../../src/inbound/consumer-status';
import type { DeadLetterReference } from '../../src/outbound/dead-letter';
import { signUp } from '../support/events';
import { uniqueName, waitFor } from '../support/kafka-helpers';
import { PipelineFixture } from '../support/service-harness';

jest.setTimeout(180_000);

/** A topic's `max.message.bytes`, as the broker applies it. */
async function topicLimit(kafka: Kafka, topic: string): Promise<number> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const { resources } = await admin.describeConfigs({
      includeSynonyms: false,
      resources: [
        { type: ConfigResourceTypes.TOPIC, name: topic, configNames: ['max.message.bytes'] },
      ],
    });
    return Number(resources[0].configEntries[0].configValue);
  } finally {
    await admin.disconnect();
  }
}

/** Sets a topic's `max.message.bytes` and returns once the broker reports it. */
async function setTopicLimit(kafka: Kafka, topic: string, bytes: number): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    await admin.alterConfigs({
      validateOnly: false,
      resources: [
        {
          type: ConfigResourceTypes.TOPIC,
          name: topic,
          configEntries: [{ name: 'max.message.bytes', value: String(bytes) }],
        },
      ],
    });
  } finally {
    await admin.disconnect();
  }
  await waitFor(async () => ((await topicLimit(kafka, topic)) === bytes ? true : undefined), {
    what: `${topic} at max.message.bytes ${bytes}`,
  });
}

/** Produces `messages` in one request, in order, and returns the offset of the first. */
async function produceInOrder(
  kafka: Kafka,
  topic: string,
  messages: Array<{ key: string; value: string | Buffer; headers?: Record<string, string> }>,
): Promise<{ partition: number; offset: string }> {
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  try {
    const [meta] = await producer.send({ topic, acks: -1, messages });
    return { partition: meta.partition, offset: meta.baseOffset! };
  } finally {
    await producer.disconnect();
  }
}

/**
 * Runs a service on `fixture` and watches its consumer: a dead letter the broker refuses fails the
 * record, and kafkajs restarts the consumer to fetch it again, and again.
 */
async function startWatched(fixture: PipelineFixture, overrides: Record<string, string> = {}) {
  const app: INestApplication = await fixture.startService(overrides);
  const crashes = jest.spyOn(app.get(ConsumerStatus), 'markDown');
  return { app, crashes };
}

function deadLetterAt(fixture: PipelineFixture, offset: string): KafkaMessage | undefined {
  return fixture.collector.messages.find(
    (m) =>
      m.topic === fixture.topics.TOPIC_DEAD_LETTER &&
      readDeadLetterHeaders(m.headers)?.originalOffset === offset,
  );
}

async function resultsFor(fixture: PipelineFixture, ids: string[]): Promise<void> {
  await waitFor(
    () => {
      const sent = fixture.collector.results<EmailCampaignSentV1>(
        fixture.topics.TOPIC_CAMPAIGN_SENT,
      );
      const done = new Set(sent.map((s) => s.sourceeventid));
      return ids.every((id) => done.has(id)) ? true : undefined;
    },
    { what: 'results of the records behind the dead letter', timeoutMs: 60_000 },
  );
}

function header(message: KafkaMessage, name: string): string | undefined {
  return message.headers?.[name]?.toString();
}

function sha256(value: string | Buffer): string {
  return createHash('sha256').update(value).digest('hex');
}

describe('a record that fits its topic but whose dead letter would not fit the dead-letter topic', () => {
  const fixture = new PipelineFixture();
  const run = uniqueName('oversize');
  let watched: Awaited<ReturnType<typeof startWatched>>;

  beforeAll(async () => {
    await fixture.start();
    watched = await startWatched(fixture);
  });
  afterAll(() => fixture.stop());

  it('dead-letters a reference to it and goes on with the records behind it', async () => {
    const { TOPIC_USER_SIGNED_UP: inbound, TOPIC_DEAD_LETTER: deadLetters } = fixture.topics;
    // Both topics at the broker's real default: the big record fits the inbound topic (its batch
    // is under the limit by a few bytes), and its dead letter, with error headers, would not.
    const limit = await topicLimit(fixture.kafka, deadLetters);
    expect(await topicLimit(fixture.kafka, inbound)).toBe(limit);
    const big = Buffer.alloc(limit - 100, 'x');
    const key = 'same-partition';
    const { partition, offset } = await produceInOrder(fixture.kafka, inbound, [
      { key, value: big, headers: { 'x-origin': 'test' } },
    ]);
    const behind = Array.from({ length: 5 }, (_, i) => signUp(i, run));
    await produceInOrder(
      fixture.kafka,
      inbound,
      behind.map((e) => ({ key, value: JSON.stringify(e) })),
    );

    const letter = await waitFor(() => deadLetterAt(fixture, offset), {
      what: 'the dead letter of the big record',
      timeoutMs: 60_000,
    });
    await resultsFor(
      fixture,
      behind.map((e) => e.id),
    );

    expect(header(letter, 'mailbridge_dlt-value-replaced')).toBe('reference');
    expect(header(letter, 'mailbridge_dlt-headers-dropped')).toBeUndefined();
    expect(header(letter, 'x-origin')).toBe('test');
    expect(header(letter, 'mailbridge_dlt-error-code')).toBe('OVERSIZED');
    expect(readDeadLetterHeaders(letter.headers)?.originalPartition).toBe(partition);
    expect(letter.key?.toString()).toBe(key);
    expect(JSON.parse(letter.value!.toString())).toEqual({
      originalTopic: inbound,
      originalPartition: partition,
      originalOffset: offset,
      originalSize: big.length,
      sha256: sha256(big),
      reason: 'exceeds-topic-limit',
      limitBytes: limit,
    } satisfies DeadLetterReference);
    expect(watched.crashes).not.toHaveBeenCalled();
  });
});

describe('a dead-letter topic with a small max.message.bytes', () => {
  const fixture = new PipelineFixture();
  const run = uniqueName('small-dlq');
  let watched: Awaited<ReturnType<typeof startWatched>>;

  /** An invalid sign-up (its email is not one, and it carries padding) of about `bytes` bytes. */
  function invalidOf(bytes: number, i: number): string {
    const event = signUp(i, run);
    const invalid = { ...event, data: { ...event.data, email: 'not-an-email' } };
    const padding = 'p'.repeat(bytes - JSON.stringify(invalid).length - 20);
    return JSON.stringify({ ...invalid, data: { ...invalid.data, note: padding } });
  }

  beforeAll(async () => {
    await fixture.start();
    // Before the service starts: it reads the limit at start-up.
    await setTopicLimit(fixture.kafka, fixture.topics.TOPIC_DEAD_LETTER, 10_000);
    watched = await startWatched(fixture);
  });
  afterAll(() => fixture.stop());

  async function deadLetterOf(value: string, i: number): Promise<KafkaMessage> {
    const key = `user-${i}`;
    const { offset } = await produceInOrder(fixture.kafka, fixture.topics.TOPIC_USER_SIGNED_UP, [
      { key, value, headers: { 'x-origin': 'test' } },
      ...[1, 2, 3].map((j) => ({ key, value: JSON.stringify(signUp(i * 10 + j, run)) })),
    ]);
    const letter = await waitFor(() => deadLetterAt(fixture, offset), {
      what: `the dead letter at offset ${offset}`,
      timeoutMs: 60_000,
    });
    await resultsFor(
      fixture,
      [1, 2, 3].map((j) => signUp(i * 10 + j, run).id),
    );
    expect(header(letter, 'mailbridge_dlt-value-replaced')).toBe('reference');
    expect(header(letter, 'x-origin')).toBe('test');
    // Which code (an invalid field, an unknown one) is the parser's business, not this test's.
    expect(header(letter, 'kafka_dlt-exception-fqcn')).toMatch(/^mailbridge\.InvalidEventError\./);
    const reference = JSON.parse(letter.value!.toString()) as DeadLetterReference;
    expect(reference).toMatchObject({
      originalTopic: fixture.topics.TOPIC_USER_SIGNED_UP,
      originalOffset: offset,
      originalSize: Buffer.byteLength(value),
      sha256: sha256(value),
    });
    expect(letter.value!.toString()).not.toContain('not-an-email');
    return letter;
  }

  it('dead-letters an ordinary invalid record of 20 KB as a reference', async () => {
    const letter = await deadLetterOf(invalidOf(20_000, 1), 1);
    expect(JSON.parse(letter.value!.toString())).toMatchObject({
      reason: 'exceeds-topic-limit',
      limitBytes: 10_000,
    });
    expect(watched.crashes).not.toHaveBeenCalled();
  });

  it('reads the limit again when the broker refuses a dead letter it thought would fit', async () => {
    // Lowered behind the service's back: its cached 10,000 says a 5 KB record fits.
    await setTopicLimit(fixture.kafka, fixture.topics.TOPIC_DEAD_LETTER, 3_000);
    const letter = await deadLetterOf(invalidOf(5_000, 2), 2);
    expect(JSON.parse(letter.value!.toString())).toMatchObject({
      reason: 'refused-by-broker',
      limitBytes: 3_000,
    });
    expect(watched.crashes).not.toHaveBeenCalled();
  });
});
