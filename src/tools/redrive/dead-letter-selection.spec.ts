import type { IHeaders, KafkaMessage } from 'kafkajs';
import { DLT_HEADERS, encodeInt32, encodeInt64 } from '../../contracts/dead-letter-headers';
import { DeadLetterSelection, originalHeaders } from './dead-letter-selection';
import { parseRedriveOptions } from './redrive-options';
import { logKey } from './redrive-log';

const DLQ = 'mailbridge.dead-letter.v1';
const SIGNUPS = 'user.signed_up.v1';
const ORDERS = 'order.placed.v1';
const inbound = new Set([SIGNUPS, ORDERS]);

let offset = 0;
function letter(code: string, topic: string, timestamp: number, extra: IHeaders = {}) {
  const headers: IHeaders = {
    traceparent: Buffer.from('00-abc-def-01'),
    [DLT_HEADERS.originalTopic]: Buffer.from(topic),
    [DLT_HEADERS.originalPartition]: encodeInt32(1),
    [DLT_HEADERS.originalOffset]: encodeInt64(offset),
    [DLT_HEADERS.originalTimestamp]: encodeInt64(timestamp - 10),
    [DLT_HEADERS.exceptionFqcn]: Buffer.from(`mailbridge.InvalidEventError.${code}`),
    [DLT_HEADERS.errorCode]: Buffer.from(code),
    ...extra,
  };
  const message = {
    offset: String(offset++),
    timestamp: String(timestamp),
    key: Buffer.from('k'),
    value: Buffer.from('{}'),
    headers,
  } as unknown as KafkaMessage;
  return message;
}

function select(argv: string[], messages: KafkaMessage[], redriven: string[] = []) {
  const selection = new DeadLetterSelection(parseRedriveOptions(argv), new Set(redriven), inbound);
  for (const m of messages) selection.add(DLQ, 0, m);
  return selection.result();
}

describe(DeadLetterSelection.name, () => {
  const letters = [
    letter('OVERSIZED', SIGNUPS, 1_000),
    letter('OVERSIZED', ORDERS, 2_000),
    letter('UNPARSEABLE', SIGNUPS, 3_000),
    letter('OVERSIZED', SIGNUPS, 4_000),
  ];

  it('selects by code, original topic and the dead letter’s time, since inclusive, until not', () => {
    const ids = (argv: string[]) => select(argv, letters).candidates.map((c) => c.at.offset);
    const [a, b, c, d] = letters.map((l) => l.offset);
    expect(ids(['--dry-run'])).toEqual([a, b, c, d]);
    expect(ids(['--code', 'OVERSIZED'])).toEqual([a, b, d]);
    expect(ids(['--code', 'OVERSIZED', '--topic', SIGNUPS])).toEqual([a, d]);
    expect(ids(['--dry-run', '--since', '2000', '--until', '4000'])).toEqual([b, c]);
  });

  it('counts every dead letter per code and topic, and what the filters select', () => {
    const { rows, read } = select(['--code', 'OVERSIZED', '--since', '1500'], letters);
    expect(read).toBe(4);
    expect(rows).toEqual([
      { code: 'OVERSIZED', topic: ORDERS, total: 1, selected: 1, alreadyRedriven: 0 },
      { code: 'OVERSIZED', topic: SIGNUPS, total: 2, selected: 1, alreadyRedriven: 0 },
      { code: 'UNPARSEABLE', topic: SIGNUPS, total: 1, selected: 0, alreadyRedriven: 0 },
    ]);
  });

  it('leaves out what the redrive log holds, and says how many', () => {
    const s = select(['--code', 'OVERSIZED'], letters, [logKey(DLQ, 0, letters[0].offset)]);
    expect(s.candidates.map((c) => c.at.offset)).toEqual([letters[1].offset, letters[3].offset]);
    expect(s.alreadyRedriven).toBe(1);
  });

  it('never sends a reference, nor to a topic that is not an inbound topic', () => {
    const s = select(
      ['--dry-run'],
      [
        letter('OVERSIZED', SIGNUPS, 1, { [DLT_HEADERS.valueReplaced]: Buffer.from('reference') }),
        letter('INVALID', 'some.other.topic', 1),
      ],
    );
    expect(s.candidates).toEqual([]);
    expect(s.skipped).toEqual({ reference: 1, notInbound: 1 });
  });

  it('counts records without readable dead-letter headers, naming the first problem', () => {
    const bad = letter('INVALID', SIGNUPS, 1, { [DLT_HEADERS.originalOffset]: Buffer.from('7') });
    const none = { ...letter('INVALID', SIGNUPS, 1), headers: {} } as KafkaMessage;
    const s = select(['--dry-run'], [bad, none]);
    expect(s.unreadable.count).toBe(2);
    expect(s.unreadable.first).toContain('kafka_dlt-original-offset: expected 8 bytes, got 1');
  });

  it('reads the dlq-* text headers of dead letters written before the Spring names', () => {
    const legacy = {
      ...letter('X', SIGNUPS, 5),
      headers: {
        'x-origin': Buffer.from('shop'),
        'dlq-original-topic': Buffer.from(SIGNUPS),
        'dlq-original-partition': Buffer.from('2'),
        'dlq-original-offset': Buffer.from('99'),
        'dlq-original-timestamp': Buffer.from('4'),
        'dlq-error-class': Buffer.from('InvalidEventError'),
        'dlq-error-code': Buffer.from('UNKNOWN_TYPE'),
        'dlq-error-message': Buffer.from("unknown event type 'x'"),
      },
    } as KafkaMessage;
    const [candidate] = select(['--code', 'UNKNOWN_TYPE'], [legacy]).candidates;
    expect(candidate.info).toMatchObject({
      originalTopic: SIGNUPS,
      originalPartition: 2,
      originalOffset: '99',
    });
    expect(candidate.headers).toEqual({ 'x-origin': Buffer.from('shop') });
  });

  it('sends the original headers back without the dead letter’s own', () => {
    const [candidate] = select(['--dry-run'], [letters[0]]).candidates;
    expect(Object.keys(candidate.headers)).toEqual(['traceparent']);
    expect(
      originalHeaders({ a: 'x', 'kafka_dlt-original-topic': 't', 'dlq-error-code': 'c' }),
    ).toEqual({
      a: 'x',
    });
  });
});
