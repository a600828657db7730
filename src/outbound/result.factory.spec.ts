import type { TopicsConfig } from '../config/app-config';
import type { ActionOutcome } from '../contracts/action-outcome';
import {
  DISPATCH_FAILURE_CODES,
  DISPATCH_FAILURE_RETRIABLE,
  EMAIL_DISPATCH_FAILED_V1,
} from '../contracts/email-dispatch-failed.v1';
import { EMAIL_CAMPAIGN_SENT_V1 } from '../contracts/email-campaign-sent.v1';
import { EMAIL_CONTACT_LIST_CREATED_V1 } from '../contracts/email-contact-list-created.v1';
import type { EventEnvelope } from '../contracts/event-envelope';
import { resultFor, resultTopic } from './result.factory';

const source: EventEnvelope = {
  id: 'evt-1',
  type: 'user.signed_up.v1',
  time: '2026-11-21T10:00:00Z',
};
const at = new Date('2026-11-21T10:00:01.000Z');
const result = (outcome: ActionOutcome) => resultFor(source, 'welcome', outcome, at, 'mailbridge');
const failed = (errorCode: string, more: Partial<ActionOutcome> = {}): ActionOutcome =>
  ({ status: 'failed', errorCode, message: 'why', ...more }) as ActionOutcome;

const sent: ActionOutcome = {
  status: 'sent',
  requestIds: ['req-1', 'req-2'],
  message: 'queued',
  campaignId: 'c-1',
  recipientCount: 2,
  batchRecipientCount: 40,
};
const created: ActionOutcome = {
  status: 'created',
  listId: '6b1d3c0e-0000-4000-8000-000000000001',
  name: 'new-customers-20261121T1000Z',
  memberCount: 3,
};

describe('resultFor', () => {
  it('turns a sent outcome into email.campaign.sent.v1, the first request id as requestId', () => {
    expect(result(sent)).toEqual({
      specversion: '1.0',
      id: expect.stringMatching(/^[0-9a-f]{32}$/) as string,
      type: EMAIL_CAMPAIGN_SENT_V1,
      source: 'mailbridge',
      time: '2026-11-21T10:00:01.000Z',
      datacontenttype: 'application/json',
      sourceeventid: 'evt-1',
      data: {
        sourceEventId: 'evt-1',
        sourceEventType: 'user.signed_up.v1',
        template: 'welcome',
        requestId: 'req-1',
        requestIds: ['req-1', 'req-2'],
        message: 'queued',
        campaignId: 'c-1',
        recipientCount: 2,
        batchRecipientCount: 40,
        ambiguous: undefined,
      },
    });
  });

  it("names the locale of the copy sent when the outcome has one, and none for a command's", () => {
    expect(result({ ...sent, locale: 'de' }).data).toMatchObject({ locale: 'de' });
    expect(JSON.parse(JSON.stringify(result(sent).data))).not.toHaveProperty('locale');
  });

  it('names the configured source', () => {
    expect(resultFor(source, 'welcome', sent, at, '//shop.example/mailbridge').source).toBe(
      '//shop.example/mailbridge',
    );
  });

  it('turns a created outcome into email.contact_list.created.v1', () => {
    expect(result({ ...created, ambiguous: true })).toMatchObject({
      type: EMAIL_CONTACT_LIST_CREATED_V1,
      data: {
        listId: created.status === 'created' ? created.listId : '',
        name: 'new-customers-20261121T1000Z',
        memberCount: 3,
        ambiguous: true,
      },
    });
  });

  it('gives the same id for the same source event and template, another for another template', () => {
    const later = resultFor(source, 'welcome', sent, new Date(), '/elsewhere');
    const other = resultFor(source, 'order-confirmation', sent, at, 'mailbridge');
    expect(later.id).toBe(result(sent).id);
    expect(other.id).not.toBe(result(sent).id);
    expect(result(failed('VENDOR_REJECTED')).id).not.toBe(result(sent).id);
  });

  it.each([
    ['INVALID_REQUEST', false],
    ['VENDOR_REJECTED', false],
    ['VENDOR_BAD_RESPONSE', false],
    ['VENDOR_UNAVAILABLE', true],
    ['AMBIGUOUS_SEND', true],
    ['INTERNAL_ERROR', true],
  ])('publishes %s with retriable %s', (code, retriable) => {
    expect(result(failed(code, { vendorStatus: 422 }))).toMatchObject({
      type: EMAIL_DISPATCH_FAILED_V1,
      data: { errorCode: code, retriable, vendorStatus: 422, message: 'why' },
    });
  });

  it('covers every code of the contract in the cases above', () => {
    expect([...DISPATCH_FAILURE_CODES].sort()).toEqual(
      Object.keys(DISPATCH_FAILURE_RETRIABLE).sort(),
    );
    expect(DISPATCH_FAILURE_CODES).toHaveLength(6);
  });

  it('keeps ambiguous on a failure, and retriable follows the code, not the flag', () => {
    expect(result(failed('AMBIGUOUS_SEND', { ambiguous: true })).data).toMatchObject({
      retriable: true,
      ambiguous: true,
    });
    expect(result(failed('VENDOR_REJECTED', { ambiguous: true })).data).toMatchObject({
      errorCode: 'VENDOR_REJECTED',
      retriable: false,
      ambiguous: true,
    });
  });

  describe('outcomes stored before the codes (error class names)', () => {
    it.each([
      ['VendorRequestError', undefined, 'INVALID_REQUEST', false],
      ['VendorResponseError', 200, 'VENDOR_BAD_RESPONSE', false],
      ['VendorNetworkError', undefined, 'VENDOR_UNAVAILABLE', true],
      ['VendorTimeoutError', undefined, 'VENDOR_UNAVAILABLE', true],
      ['VendorError', 422, 'VENDOR_REJECTED', false],
      ['VendorError', 307, 'VENDOR_UNAVAILABLE', true],
      ['VendorError', undefined, 'INTERNAL_ERROR', true],
      ['VendorWithheldError', undefined, 'INTERNAL_ERROR', true],
      ['SomethingNobodyKnows', 404, 'VENDOR_REJECTED', false],
      ['toString', undefined, 'INTERNAL_ERROR', true],
    ])('publishes %s (status %s) as %s, retriable %s', (stored, status, code, retriable) => {
      expect(result(failed(stored, { vendorStatus: status })).data).toMatchObject({
        errorCode: code,
        retriable,
        vendorStatus: status,
      });
    });
  });
});

describe('resultTopic', () => {
  const topics = {
    campaignSent: 'sent-topic',
    contactListCreated: 'created-topic',
    dispatchFailed: 'failed-topic',
  } as TopicsConfig;

  it('sends each kind of outcome to its own topic', () => {
    expect(resultTopic(sent, topics)).toBe('sent-topic');
    expect(resultTopic(created, topics)).toBe('created-topic');
    expect(resultTopic(failed('AMBIGUOUS_SEND'), topics)).toBe('failed-topic');
  });
});

describe('resultFor, with its time given as text', () => {
  it('is the same result as with the Date it was written from', () => {
    expect(resultFor(source, 'welcome', sent, at.toISOString(), 'mailbridge')).toEqual(
      resultFor(source, 'welcome', sent, at, 'mailbridge'),
    );
  });
});
