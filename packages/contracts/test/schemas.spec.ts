import {
  INBOUND_TYPES,
  RESULT_TYPES,
  SchemaValidationError,
  decodeResult,
  schemas,
} from '@mailbridge/contracts';

const sent = {
  sourceEventId: 'evt-1',
  sourceEventType: 'user.signed_up.v1',
  template: 'welcome',
  requestId: 'req-1',
  requestIds: ['req-1'],
  message: 'queued',
  recipientCount: 1,
  batchRecipientCount: 1,
};

function binaryResult(data: object) {
  return {
    key: 'u-1',
    value: JSON.stringify(data),
    headers: {
      ce_specversion: '1.0',
      ce_id: 'res-1',
      ce_source: 'mailbridge',
      ce_type: 'email.campaign.sent.v1',
      ce_time: '2026-11-21T10:00:01Z',
      ce_sourceeventid: 'evt-1',
      'content-type': 'application/json',
    },
  };
}

describe('the schemas shipped with @mailbridge/contracts', () => {
  it('has one for every inbound and result type', () => {
    const missing = [...INBOUND_TYPES, ...RESULT_TYPES].filter((t) => !(t in schemas()));
    expect(missing).toEqual([]);
  });

  it("checks a result's data against its type's schema", () => {
    expect(decodeResult(binaryResult(sent), { validate: true }).data).toEqual(sent);
    const inGerman = { ...sent, locale: 'de-AT' };
    expect(decodeResult(binaryResult(inGerman), { validate: true }).data).toEqual(inGerman);
    const bad = binaryResult({ ...sent, recipientCount: 'one' });
    expect(() => decodeResult(bad, { validate: true })).toThrow(SchemaValidationError);
    expect(() => decodeResult(bad, { validate: true })).toThrow(/recipientCount/);
  });
});
