import type { InboundEvent } from '../contracts/inbound-contracts';
import type { EventSource } from './dispatch-outcome';
import { eventLogFields } from './event-log';

const source: EventSource = { key: null, headers: {}, topic: 'signups', partition: 2, offset: '7' };
const event = {
  id: 'evt-1',
  type: 'user.signed_up.v1',
  time: '2026-11-21T10:00:00Z',
  data: { userId: 'u-1', email: 'ada@example.com', name: 'Ada Lovelace' },
} as InboundEvent;

describe(eventLogFields.name, () => {
  it('finds the event on Kafka and names its template, without recipient addresses', () => {
    expect(eventLogFields(event, 'welcome', source)).toEqual({
      eventId: 'evt-1',
      eventType: 'user.signed_up.v1',
      topic: 'signups',
      partition: 2,
      offset: '7',
      template: 'welcome',
    });
  });

  it("names a CloudEvent's extension attributes, never their values", () => {
    const extended = { ...event, extensions: { tenant: 'secret-tenant', replay: true } };
    const fields = eventLogFields(extended, 'welcome', source);
    expect(fields).toMatchObject({ extensions: ['tenant', 'replay'] });
    expect(JSON.stringify(fields)).not.toContain('secret-tenant');
  });
});
