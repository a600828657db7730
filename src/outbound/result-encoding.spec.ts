import { CloudEvent, Kafka, type KafkaMessage } from 'cloudevents';
import { contractSchemas, RESULT_CLOUDEVENT_SCHEMA } from '../contracts/contract-schemas';
import { contractAjv } from '../contracts/json-schema-rules';
import type { ActionOutcome } from '../contracts/action-outcome';
import type { EventEnvelope } from '../contracts/event-envelope';
import { encodeResult } from './result-encoding';
import { resultFor } from './result.factory';

const source: EventEnvelope = {
  id: 'evt-1',
  type: 'user.signed_up.v1',
  time: '2026-11-21T10:00:00Z',
};
const sent: ActionOutcome = {
  status: 'sent',
  requestIds: ['req-1'],
  message: 'queued',
  recipientCount: 1,
  batchRecipientCount: 1,
};
const result = resultFor(source, 'welcome', sent, new Date('2026-11-21T10:00:01Z'), 'mailbridge');

/** What a subscriber using the CloudEvents SDK reads from the record, validated strictly. */
function decoded(encoded: { value: string; headers: Record<string, string> }) {
  const event = Kafka.toEvent({
    key: 'user-1',
    value: encoded.value,
    headers: encoded.headers,
  } as unknown as KafkaMessage<unknown>) as CloudEvent<unknown>;
  expect(event.validate()).toBe(true);
  return event;
}

describe(encodeResult.name, () => {
  it('binary mode: attributes in ce_ headers, content-type from datacontenttype, data alone as the value', () => {
    const encoded = encodeResult(result, 'binary');
    expect(encoded.headers).toEqual({
      ce_specversion: '1.0',
      ce_id: result.id,
      ce_source: 'mailbridge',
      ce_type: 'email.campaign.sent.v1',
      ce_time: '2026-11-21T10:00:01.000Z',
      ce_sourceeventid: 'evt-1',
      'content-type': 'application/json',
    });
    expect(JSON.parse(encoded.value)).toEqual(JSON.parse(JSON.stringify(result.data)));
    expect(decoded(encoded)).toMatchObject({
      specversion: '1.0',
      id: result.id,
      source: 'mailbridge',
      type: 'email.campaign.sent.v1',
      datacontenttype: 'application/json',
      sourceeventid: 'evt-1',
      data: { sourceEventId: 'evt-1', template: 'welcome', requestId: 'req-1' },
    });
  });

  it('structured mode: the whole event as JSON, content-type application/cloudevents+json', () => {
    const encoded = encodeResult(result, 'structured');
    expect(encoded.headers).toEqual({
      'content-type': 'application/cloudevents+json; charset=utf-8',
    });
    expect(JSON.parse(encoded.value)).toEqual({
      specversion: '1.0',
      id: result.id,
      source: 'mailbridge',
      type: 'email.campaign.sent.v1',
      time: '2026-11-21T10:00:01.000Z',
      datacontenttype: 'application/json',
      sourceeventid: 'evt-1',
      data: JSON.parse(JSON.stringify(result.data)) as unknown,
    });
    expect(decoded(encoded)).toMatchObject({
      id: result.id,
      sourceeventid: 'evt-1',
      data: { requestIds: ['req-1'] },
    });
  });

  it('writes the same id for the same result in both modes', () => {
    const binary = decoded(encodeResult(result, 'binary'));
    const structured = decoded(encodeResult(result, 'structured'));
    expect(binary.id).toBe(structured.id);
    expect(binary.data).toEqual(structured.data);
  });

  it('writes what the published schemas describe: the structured event and its data', () => {
    const ajv = contractAjv({ strict: false, allErrors: true });
    const validators = new Map(contractSchemas().map((c) => [c.name, ajv.compile(c.schema)]));
    const problems = (name: string, value: unknown) => {
      const validate = validators.get(name)!;
      return validate(value) ? [] : validate.errors;
    };
    const structured = JSON.parse(encodeResult(result, 'structured').value) as typeof result;
    expect(problems(RESULT_CLOUDEVENT_SCHEMA, structured)).toEqual([]);
    expect(problems(result.type, structured.data)).toEqual([]);
    expect(problems(result.type, JSON.parse(encodeResult(result, 'binary').value))).toEqual([]);
  });
});
