import { Logger } from '@nestjs/common';
import {
  lostAnswer,
  PAUSE_MS,
  rejected,
  unavailable,
  vendorTrouble,
} from '../../test/support/vendor-trouble';
import {
  VendorAuthError,
  VendorError,
  VendorNetworkError,
  VendorRequestError,
} from '../email-api/vendor.errors';
import type { CampaignRecipient } from '../email-api/vendor.types';
import { ClaimLostError } from '../idempotency/claim-lost.error';
import type { BatchedAction, CampaignBatcher, RecipientResults } from './campaign.batcher';
import type { ActionTicket } from './action-ticket';
import { CampaignDelivery } from './campaign.delivery';

type Action = Parameters<CampaignDelivery['deliver']>[0];
type Policy = 'resend' | 'fail';

const content = { subject: 'Hi', body: '<p>Hi</p>', campaignId: 'c-1' };
const to = (n: number): CampaignRecipient => ({ email: `r${n}@example.com` });
const campaign = (...recipients: CampaignRecipient[]): Action => ({
  kind: 'campaign',
  batchKey: 'welcome',
  content,
  recipients,
});
const ticket = (more: Partial<ActionTicket> = {}): ActionTicket => ({
  claim: { key: 'evt-1:welcome', holder: { instance: 'i-1', handling: 'h-1' } },
  category: 'transactional',
  ambiguous: false,
  ...more,
});

/** What one `add` call answers: recipients sent in `requestId`, or failed with an error. */
type Answer =
  | {
      sent: CampaignRecipient[];
      failed?: Array<[CampaignRecipient, VendorError]>;
      suppressed?: CampaignRecipient[];
      lost?: number;
    }
  | Error;

/**
 * Stands in for `CampaignBatcher`: answers each `add` with the next scripted answer, as the
 * real one would deliver it, and keeps what it was asked and for which claim.
 */
class FakeCampaigns {
  readonly calls: CampaignRecipient[][] = [];
  readonly actions: BatchedAction[] = [];
  constructor(private readonly answers: Answer[]) {}

  add(
    _key: string,
    _content: unknown,
    recipients: CampaignRecipient[],
    action: BatchedAction,
  ): Promise<RecipientResults> {
    this.calls.push(recipients);
    this.actions.push(action);
    const answer = this.answers.shift();
    if (!answer) throw new Error('no answer scripted');
    if (answer instanceof Error) return Promise.reject(answer);
    const n = this.calls.length;
    return Promise.resolve({
      sent: answer.sent.map((recipient) => ({ recipient, requestId: `req-${n}`, message: 'ok' })),
      failed: (answer.failed ?? []).map(([recipient, error]) => ({ recipient, error })),
      suppressed: answer.suppressed ?? [],
      batchRecipientCount: 10 * n,
      ambiguousAttempts: answer.lost ?? 0,
    });
  }
}

function setUp(answers: Answer[], policy: Policy = 'resend') {
  const { trouble, gate, trips, count } = vendorTrouble(policy);
  const campaigns = new FakeCampaigns(answers);
  const service = new CampaignDelivery(campaigns as unknown as CampaignBatcher, trouble);
  return { service, campaigns, gate, trips, count };
}

describe(CampaignDelivery.name, () => {
  // The gate logs every pause and resumption; these specs pause on purpose.
  beforeAll(() => {
    Logger.overrideLogger(false);
  });
  afterAll(() => {
    Logger.overrideLogger(['log', 'error', 'warn']);
  });

  it('sends every recipient under the ticket’s claim and returns the outcome, recording nothing', async () => {
    const { service, campaigns, trips } = setUp([{ sent: [to(1), to(2)] }]);
    const outcome = await service.deliver(campaign(to(1), to(2)), ticket());
    expect(outcome).toEqual({
      status: 'sent',
      requestIds: ['req-1'],
      message: 'ok',
      campaignId: 'c-1',
      recipientCount: 2,
      batchRecipientCount: 10,
    });
    // The batched recipients go under the claim, which the batcher marks before the write.
    expect(campaigns.actions).toEqual([
      { claim: ticket().claim, category: 'transactional', trace: undefined },
    ]);
    expect(trips).not.toHaveBeenCalled();
  });

  it('sends the others and counts the suppressed recipients, never naming one', async () => {
    const { service, campaigns } = setUp([{ sent: [to(1), to(3)], suppressed: [to(2)] }]);
    const outcome = await service.deliver(campaign(to(1), to(2), to(3)), ticket());
    expect(outcome).toEqual({
      status: 'sent',
      requestIds: ['req-1'],
      message: 'ok',
      campaignId: 'c-1',
      recipientCount: 2,
      batchRecipientCount: 10,
      suppressedCount: 1,
    });
    expect(JSON.stringify(outcome)).not.toContain('@');
    expect(campaigns.calls).toHaveLength(1); // a suppressed recipient is never tried again
  });

  it('fails as SUPPRESSED, not retriable, when every recipient is suppressed', async () => {
    const { service, trips } = setUp([{ sent: [], suppressed: [to(1), to(2)] }]);
    const outcome = await service.deliver(campaign(to(1), to(2)), ticket());
    expect(outcome).toEqual({
      status: 'failed',
      errorCode: 'INVALID_REQUEST',
      reasonCode: 'SUPPRESSED',
      suppressedCount: 2,
      message: 'not sent: all 2 recipients are on the suppression list',
    });
    expect(trips).not.toHaveBeenCalled();
  });

  it('does not send again a suppressed recipient when others go again after trouble', async () => {
    const { service, campaigns } = setUp([
      {
        sent: [to(1)],
        suppressed: [to(2)],
        failed: [[to(3), new VendorNetworkError('reset', 'ECONNRESET', true)]],
      },
      { sent: [to(3)] },
    ]);
    const outcome = await service.deliver(campaign(to(1), to(2), to(3)), ticket());
    expect(campaigns.calls[1]).toEqual([to(3)]);
    expect(outcome).toMatchObject({ status: 'sent', recipientCount: 2, suppressedCount: 1 });
  });

  it("keeps the locale of a template's copy in the outcome, for its result", async () => {
    const { service } = setUp([{ sent: [to(1)] }]);
    const german = { ...campaign(to(1)), batchKey: 'welcome:de', locale: 'de' };
    expect(await service.deliver(german, ticket())).toMatchObject({ status: 'sent', locale: 'de' });
  });

  it('fails the action for good when our own check refuses the request, without a pause', async () => {
    const { service, campaigns, trips } = setUp([
      new VendorRequestError('campaign refused: subject contains a line break'),
    ]);
    expect(await service.deliver(campaign(to(1)), ticket())).toEqual({
      status: 'failed',
      errorCode: 'INVALID_REQUEST',
      vendorStatus: undefined,
      message: 'campaign refused: subject contains a line break',
    });
    expect(campaigns.calls).toHaveLength(1);
    expect(trips).not.toHaveBeenCalled();
  });

  it('reports a partial send when the vendor refuses some recipients for good', async () => {
    const { service, campaigns } = setUp([{ sent: [to(1)], failed: [[to(2), rejected(422)]] }]);
    expect(await service.deliver(campaign(to(1), to(2)), ticket())).toEqual({
      status: 'failed',
      errorCode: 'VENDOR_REJECTED',
      vendorStatus: 422,
      message: '1 of 2 recipients sent; vendor answered 422',
    });
    expect(campaigns.calls).toHaveLength(1);
  });

  it('pauses for transient trouble, then sends only the recipients that failed', async () => {
    const { service, campaigns, trips, count } = setUp([
      { sent: [to(1)], failed: [[to(2), unavailable()]] },
      { sent: [to(2)] },
    ]);
    const outcome = await service.deliver(campaign(to(1), to(2)), ticket());
    expect(trips).toHaveBeenCalledTimes(1);
    expect(trips).toHaveBeenCalledWith('outage', PAUSE_MS, 'vendor answered 503');
    expect(await count('mailbridge_vendor_pauses_total', { reason: 'outage' })).toBe(1);
    expect(campaigns.calls).toEqual([[to(1), to(2)], [to(2)]]);
    expect(outcome).toMatchObject({
      status: 'sent',
      requestIds: ['req-1', 'req-2'],
      recipientCount: 2,
      batchRecipientCount: 20,
    });
    expect(outcome).not.toHaveProperty('ambiguous');
  });

  it('pauses on an auth refusal and tries again, never failing the action for it', async () => {
    const { service, campaigns, trips } = setUp([new VendorAuthError(401), { sent: [to(1)] }]);
    expect(await service.deliver(campaign(to(1)), ticket())).toMatchObject({ status: 'sent' });
    expect(trips).toHaveBeenCalledWith('auth', PAUSE_MS, 'status 401');
    expect(campaigns.calls).toHaveLength(2);
  });

  it('lets an error that is not the vendor’s surface (a claim lost)', async () => {
    const { service } = setUp([new ClaimLostError('evt-1:welcome')]);
    await expect(service.deliver(campaign(to(1)), ticket())).rejects.toThrow(ClaimLostError);
  });

  it('under policy fail, reports a lost answer as AMBIGUOUS_SEND and does not send again', async () => {
    const { service, campaigns, count } = setUp(
      [{ sent: [], failed: [[to(1), lostAnswer()]], lost: 1 }],
      'fail',
    );
    const outcome = await service.deliver(campaign(to(1)), ticket());
    expect(outcome).toMatchObject({
      status: 'failed',
      errorCode: 'AMBIGUOUS_SEND',
      ambiguous: true,
    });
    expect(campaigns.calls).toHaveLength(1);
    expect(
      await count('mailbridge_ambiguous_sends_total', {
        cause: 'lost-answer',
        resolution: 'fail',
      }),
    ).toBe(1);
  });

  it('under policy resend, sends a lost answer again and marks the result ambiguous', async () => {
    const { service, campaigns } = setUp([
      { sent: [], failed: [[to(1), lostAnswer()]], lost: 1 },
      { sent: [to(1)] },
    ]);
    const outcome = await service.deliver(campaign(to(1)), ticket());
    expect(campaigns.calls).toHaveLength(2);
    expect(outcome).toMatchObject({ status: 'sent', requestIds: ['req-2'], ambiguous: true });
  });

  it('marks a send ambiguous when the client resent a lost answer itself', async () => {
    const { service, count } = setUp([{ sent: [to(1)], lost: 1 }]);
    const outcome = await service.deliver(campaign(to(1)), ticket());
    expect(outcome).toMatchObject({ status: 'sent', ambiguous: true });
    expect(
      await count('mailbridge_ambiguous_sends_total', {
        cause: 'lost-answer',
        resolution: 'resend',
      }),
    ).toBe(1);
  });

  it('marks the outcome ambiguous when an earlier attempt was taken over', async () => {
    const { service, campaigns } = setUp([{ sent: [to(1)] }]);
    const outcome = await service.deliver(campaign(to(1)), ticket({ ambiguous: true }));
    expect(outcome).toMatchObject({ status: 'sent', ambiguous: true });
    expect(campaigns.calls).toHaveLength(1);
  });

  it('waits while the gate is closed, and sends once it reopens', async () => {
    const { service, campaigns, gate } = setUp([{ sent: [to(1)] }]);
    gate.trip('outage', PAUSE_MS, 'vendor answered 503');
    const outcome = service.deliver(campaign(to(1)), ticket());
    await Promise.resolve();
    expect(campaigns.calls).toHaveLength(0);
    expect(await outcome).toMatchObject({ status: 'sent' });
    expect(campaigns.calls).toHaveLength(1);
  });
});
