import {
  DEAD_LETTER_HEADER_PREFIXES,
  isDeadLetterHeader,
  readDeadLetterHeaders,
} from '../../src/contracts/dead-letter-headers';
import { DEAD_LETTER_HEADERS } from '../../src/contracts/kafka-headers';
import { runRedrive } from '../../src/tools/redrive';
import { signUp } from '../support/events';
import { produce, uniqueName, waitFor } from '../support/kafka-helpers';
import { PipelineFixture } from '../support/service-harness';

jest.setTimeout(180_000);

/** Every dead-letter header a producer could send, with a value that lies. */
const SPOOFED: Record<string, string> = {
  ...Object.fromEntries(Object.values(DEAD_LETTER_HEADERS).map((h) => [h.name, 'spoofed'])),
  'mailbridge_dlt-value-replaced': 'reference',
  'mailbridge_dlt-headers-dropped': 'true',
  'mailbridge_dlt-key-dropped': 'true',
  'dlq-original-topic': 'spoofed',
  'dlq-original-partition': '99',
  'dlq-original-offset': '99',
  'dlq-error-class': 'Spoofed',
  'dlq-error-code': 'SPOOFED',
  'dlq-error-message': 'spoofed',
  'dlq-value-replaced': 'reference',
};

describe('a record carrying spoofed dead-letter headers (real broker)', () => {
  const fixture = new PipelineFixture();
  const run = uniqueName('spoof');

  beforeAll(async () => {
    await fixture.start();
    await fixture.startService();
  });
  afterAll(() => fixture.stop());

  it('is dead-lettered with the service’s headers only, and redrive selects it', async () => {
    const event = { ...signUp(1, run), type: 'user.deleted.v1' }; // UNKNOWN_TYPE
    const value = JSON.stringify(event);
    await produce(fixture.kafka, fixture.topics.TOPIC_USER_SIGNED_UP, [
      { key: 'spoofed', value, headers: { ...SPOOFED, 'x-origin': 'spoof-test' } },
    ]);
    const letter = await waitFor(
      () =>
        fixture.collector.messages.find(
          (m) => m.topic === fixture.topics.TOPIC_DEAD_LETTER && m.key?.toString() === 'spoofed',
        ),
      { what: 'the dead letter' },
    );
    const headers = letter.headers ?? {};
    // The record's own headers are kept, its full value too.
    expect(headers['x-origin']?.toString()).toBe('spoof-test');
    expect(letter.value?.toString()).toBe(value);
    // Under the dead-letter prefixes, only what the service wrote, once each, none spoofed.
    const ours = Object.keys(headers).filter(isDeadLetterHeader);
    expect(DEAD_LETTER_HEADER_PREFIXES.length).toBe(3);
    expect(ours.filter((n) => n.startsWith('dlq-'))).toEqual([]);
    for (const name of ours) {
      expect([name, Array.isArray(headers[name])]).toEqual([name, false]);
      expect([name, headers[name]?.toString()]).not.toEqual([name, 'spoofed']);
    }
    for (const name of [
      'mailbridge_dlt-value-replaced',
      'mailbridge_dlt-headers-dropped',
      'mailbridge_dlt-key-dropped',
    ]) {
      expect([name, headers[name]]).toEqual([name, undefined]);
    }
    const info = readDeadLetterHeaders(headers)!;
    expect(info).toMatchObject({
      originalTopic: fixture.topics.TOPIC_USER_SIGNED_UP,
      originalConsumerGroup: fixture.groupId,
      errorCode: 'UNKNOWN_TYPE',
      exceptionFqcn: 'mailbridge.InvalidEventError.UNKNOWN_TYPE',
      valueReplaced: false,
    });

    const summary = (await runRedrive(['--dry-run'], fixture.env(), () => undefined))!;
    expect(summary).toMatchObject({ read: 1, selected: 1 });
    expect(summary.skipped.reference).toBe(0);
  });
});
