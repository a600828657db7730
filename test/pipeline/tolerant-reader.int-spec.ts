import type { INestApplication } from '@nestjs/common';
import type { ValidateFunction } from 'ajv';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DLT_HEADERS } from '../../src/contracts/dead-letter-headers';
import type { EmailCampaignSentV1 } from '../../src/contracts/email-campaign-sent.v1';
import { contractAjv } from '../../src/contracts/json-schema-rules';
import { MetricsService } from '../../src/metrics/metrics.service';
import { campaignEvent, encode } from '../hostile/valid-events';
import { order, signUp } from '../support/events';
import { produce, uniqueName, waitFor } from '../support/kafka-helpers';
import { PipelineFixture } from '../support/service-harness';

jest.setTimeout(180_000);

/** Names no contract declares: none of them may reach the vendor. */
const UNKNOWN = ['referralCode', 'utmSource', 'loyaltyTier', 'geoLatitude', 'discountCode'];

/**
 * The tolerant reader on the real broker: domain events whose data carries fields mailbridge does
 * not know (nested too) are sent without them and counted; so are lenient fields whose value does
 * not fit (a sign-up's `locale: 42`, an order customer's `timeZone: 42`), never dead-lettered; a
 * command with an unknown field is dead-lettered UNKNOWN_FIELD; a structured-mode CloudEvent with
 * an extension attribute passes the published schema and the service.
 */
describe('unknown fields on the real broker', () => {
  const fixture = new PipelineFixture();
  const run = uniqueName('tolerant');
  let app: INestApplication;

  const signup = signUp(1, run);
  Object.assign(signup.data, { referralCode: 'r-1', utm: { utmSource: 'ad', deep: { x: 1 } } });

  const placed = order(2, run);
  const customer = placed.data.customer as Record<string, unknown>;
  customer.loyaltyTier = 'gold';
  customer.address = { city: 'Springfield', geo: { geoLatitude: 1.5 } };
  for (const item of placed.data.items as Array<Record<string, unknown>>) item.discountCode = 'X';
  // Structured mode, with an extension attribute beside the context attributes.
  const structuredOrder = { ...placed, specversion: '1.0', tenant: 'eu-1' };

  // Lenient fields with values that do not fit: ignored, not dead-lettered.
  const unfitSignup = signUp(4, run);
  Object.assign(unfitSignup.data, { locale: 42 });
  const unfitOrder = order(8, run);
  Object.assign(unfitOrder.data.customer, { timeZone: 42 });

  const command = campaignEvent(`${run}-campaign`);
  command.data.disableTrackingLinkz = true;

  beforeAll(async () => {
    await fixture.start();
    app = await fixture.startService({ BATCH_LINGER_MS: '200', CONTACT_LIST_WINDOW_MS: '1000' });
    const t = fixture.topics;
    await fixture.publish('TOPIC_USER_SIGNED_UP', [signup, unfitSignup], (e) => e.data.userId);
    await fixture.publish('TOPIC_ORDER_PLACED', [unfitOrder], (e) => e.id);
    await produce(fixture.kafka, t.TOPIC_ORDER_PLACED, [
      {
        key: placed.id,
        value: JSON.stringify(structuredOrder),
        headers: { 'content-type': 'application/cloudevents+json' },
      },
    ]);
    const record = encode(command, 'plain');
    await produce(fixture.kafka, t.TOPIC_CAMPAIGN_REQUESTED, [
      { key: command.id, value: record.value! },
    ]);
  });
  afterAll(() => fixture.stop());

  it('passes the published schema with the extension attribute and the unknown data fields', () => {
    const ajv = contractAjv({ strict: true });
    const schema = (type: string) =>
      JSON.parse(readFileSync(join(__dirname, '../../schemas', `${type}.json`), 'utf8')) as object;
    const validate = (type: string): ValidateFunction => ajv.compile(schema(type));
    expect(validate('order.placed.v1')(structuredOrder)).toBe(true);
    expect(validate('user.signed_up.v1')(signup)).toBe(true);
    // ...and the command is refused by its own, as by the service.
    expect(validate('email.campaign.requested.v1')(command)).toBe(false);
  });

  it('sends the sign-up and the order to the vendor without the fields it does not know', async () => {
    const sent = await waitFor(
      () => {
        const r = fixture.collector.results<EmailCampaignSentV1>(
          fixture.topics.TOPIC_CAMPAIGN_SENT,
        );
        const ids = new Set(r.map((x) => x.sourceeventid));
        return ids.has(signup.id) && ids.has(placed.id) ? r : undefined;
      },
      { what: 'the sign-up and the order sent', timeoutMs: 90_000 },
    );
    expect(sent.length).toBeGreaterThanOrEqual(2);
    const bodies = fixture.sandbox.requests.map((r) => JSON.stringify(r.body));
    const ours = bodies.filter((b) => b.includes(run));
    expect(ours.length).toBeGreaterThanOrEqual(2);
    for (const body of ours) {
      expect(UNKNOWN.filter((name) => body.includes(name))).toEqual([]);
      expect(body).not.toContain('Latitude');
    }
    // The known fields still arrived: the order's address city and the customer.
    expect(ours.some((b) => b.includes(placed.data.customer.email))).toBe(true);
    expect(ours.some((b) => b.includes(signup.data.email))).toBe(true);
  });

  it('answers the sign-up and the order whose lenient fields do not fit, and dead-letters neither', async () => {
    const ids = [unfitSignup.id, unfitOrder.id];
    await waitFor(
      () => {
        const r = fixture.collector.results<EmailCampaignSentV1>(
          fixture.topics.TOPIC_CAMPAIGN_SENT,
        );
        const answered = new Set(r.map((x) => x.sourceeventid));
        return ids.every((id) => answered.has(id)) ? r : undefined;
      },
      { what: 'the events with unfit lenient fields sent', timeoutMs: 90_000 },
    );
    const keys = [unfitSignup.data.userId, unfitOrder.id];
    const dead = fixture.collector.messages.filter(
      (m) => m.topic === fixture.topics.TOPIC_DEAD_LETTER && keys.includes(m.key?.toString() ?? ''),
    );
    expect(dead).toEqual([]);
    const failed = fixture.collector
      .results<{ sourceeventid?: string }>(fixture.topics.TOPIC_DISPATCH_FAILED)
      .filter((r) => ids.includes(r.sourceeventid ?? ''));
    expect(failed).toEqual([]);
  });

  it('counts the ignored fields by event type', async () => {
    const metrics = app.get(MetricsService);
    const text = await metrics.registry.metrics();
    const line = (type: string) =>
      text
        .split('\n')
        .find((l) => l.startsWith(`mailbridge_inbound_ignored_fields_total{type="${type}"}`));
    // Sign-up: data.referralCode, data.utm, and the other's data.locale (42). Order:
    // data.customer.loyaltyTier, data.customer.address.geo, data.items[].discountCode (each path
    // once), and the other's data.customer.timeZone (42).
    expect(line('user.signed_up.v1')).toBe(
      'mailbridge_inbound_ignored_fields_total{type="user.signed_up.v1"} 3',
    );
    expect(line('order.placed.v1')).toBe(
      'mailbridge_inbound_ignored_fields_total{type="order.placed.v1"} 4',
    );
    expect(text).not.toMatch(/mailbridge_inbound_ignored_fields_total\{[^}]*field/);
  });

  it('dead-letters the campaign command with its unknown field as UNKNOWN_FIELD, and sends nothing', async () => {
    const letter = await waitFor(
      () =>
        fixture.collector.messages.find(
          (m) => m.topic === fixture.topics.TOPIC_DEAD_LETTER && m.key?.toString() === command.id,
        ),
      { what: 'the command dead-lettered' },
    );
    expect(letter.headers?.[DLT_HEADERS.errorCode]?.toString()).toBe('UNKNOWN_FIELD');
    expect(letter.headers?.[DLT_HEADERS.exceptionMessage]?.toString()).toContain(
      'data.disableTrackingLinkz',
    );
    const addresses = JSON.stringify(fixture.sandbox.requests.map((r) => r.body));
    expect(addresses).not.toContain(`ada-${command.id}`);
  });
});
