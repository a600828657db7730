import { loadConfig } from '../../src/config/config.loader';
import type { InboundEvent } from '../../src/contracts/inbound-contracts';
import { orderPlaced, userSignedUp } from '../workloads/event-factory';
import { floorWork } from './floor-work';

describe('floorWork', () => {
  const config = loadConfig({
    MAILBRIDGE_MODE: 'local',
    SENDER_FROM_EMAIL: 'bench@mailbridge.local',
  });
  const parsed = (value: string) => JSON.parse(value) as InboundEvent;

  it('gives a sign-up its welcome recipient and no contact-list window', () => {
    const work = floorWork('user', config);
    const event = parsed(userSignedUp(7).value);
    const action = work.campaign.plan(event);

    expect(work.campaign.template).toBe('welcome');
    expect(action.recipients.map((r) => r.email)).toEqual([
      (event.data as { email: string }).email,
    ]);
    expect(work.window).toBeUndefined();
  });

  it("gives an order its confirmation and its customer's place in the order's window", () => {
    const work = floorWork('order', config);
    const placedAt = new Date('2026-11-27T10:00:04.000Z');
    const event = parsed(orderPlaced(3, placedAt).value);
    const { email } = (event.data as { customer: { email: string } }).customer;

    expect(work.campaign.template).toBe('order-confirmation');
    expect(work.campaign.plan(event).recipients[0].attributes?.ORDER_ID).toBe('ord-00000003');

    const entry = work.window!.entryOf(event, `${event.id}:new-customers`, Buffer.from('ord-3'));
    // The window of the order's placedAt, named and bounded as mailbridge's windows are.
    const windowMs = config.batching.contactListWindowMs;
    const start = Math.floor(placedAt.getTime() / windowMs) * windowMs;
    expect(entry.window.end).toBe(start + windowMs);
    expect(entry.window.name).toBe('new-customers-20261127T100000Z');
    expect(entry.order).toEqual({
      ref: `${event.id}:new-customers`,
      eventId: event.id,
      eventType: 'order.placed.v1',
      template: 'new-customers',
      key: Buffer.from('ord-3').toString('base64'),
      headers: {},
    });
    expect(entry.member.email).toBe(email);
    expect(entry.address).toBe(email.toLowerCase());
  });
});
