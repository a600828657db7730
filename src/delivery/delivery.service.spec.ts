import { Logger } from '@nestjs/common';
import type { AppConfig } from '../config/app-config';
import type { ActionOutcome } from '../contracts/action-outcome';
import {
  VendorAuthError,
  VendorError,
  VendorRequestError,
  VendorTimeoutError,
} from '../email-api/vendor.errors';
import type { CampaignRecipient, ContactMember } from '../email-api/vendor.types';
import { ClaimLostError } from '../idempotency/claim-lost.error';
import { MetricsService } from '../metrics/metrics.service';
import type {
  BatchedAction,
  CampaignBatcher,
  CampaignDelivery,
  CampaignSettle,
} from './campaign.batcher';
import type { ContactListBatcher, ContactListDelivery, ListSend } from './contact-list.batcher';
import { MemoryIdempotencyStore } from '../idempotency/memory-idempotency.store';
import { DeliveryService, type ActionTicket } from './delivery.service';
import { VendorTrouble } from './vendor-trouble';
import { VendorGate } from './vendor.gate';

type Action = Parameters<DeliveryService['execute']>[0];
type Policy = 'resend' | 'fail';

const PAUSE_MS = 5;
const content = { subject: 'Hi', body: '<p>Hi</p>', campaignId: 'c-1' };
const to = (n: number): CampaignRecipient => ({ email: `r${n}@example.com` });
const campaign = (...recipients: CampaignRecipient[]): Action => ({
  kind: 'campaign',
  batchKey: 'welcome',
  content,
  recipients,
});
const member: ContactMember = { email: 'm@example.com', firstName: 'M' };
const exactList: Action = { kind: 'contact-list', mode: 'exact', name: 'vip', members: [member] };
const ticket = (more: Partial<ActionTicket> = {}): ActionTicket => ({
  claim: { key: 'evt-1:welcome', holder: { instance: 'i-1', handling: 'h-1' } },
  ambiguous: false,
  ...more,
});

/** What one `add` call answers: recipients sent in `requestId`, or failed with an error. */
type Answer =
  | { sent: CampaignRecipient[]; failed?: Array<[CampaignRecipient, VendorError]>; lost?: number }
  | Error;

/**
 * Stands in for `CampaignBatcher`: answers each `add` with the next scripted answer, as the
 * real one would deliver it, and keeps what it was asked and what `outcomeOf` recorded.
 */
class FakeCampaigns {
  readonly calls: CampaignRecipient[][] = [];
  readonly recorded: Array<ActionOutcome | undefined> = [];
  constructor(private readonly answers: Answer[]) {}

  add(
    _key: string,
    _content: unknown,
    recipients: CampaignRecipient[],
    action: BatchedAction,
  ): Promise<CampaignDelivery> {
    this.calls.push(recipients);
    const answer = this.answers.shift();
    if (!answer) throw new Error('no answer scripted');
    if (answer instanceof Error) return Promise.reject(answer);
    const n = this.calls.length;
    const delivery: CampaignDelivery = {
      sent: answer.sent.map((recipient) => ({ recipient, requestId: `req-${n}`, message: 'ok' })),
      failed: (answer.failed ?? []).map(([recipient, error]) => ({ recipient, error })),
      batchRecipientCount: 10 * n,
      ambiguousAttempts: answer.lost ?? 0,
      recorded: false,
    };
    // As the batcher does: the outcome `outcomeOf` gives is recorded, and the delivery says so.
    const outcome = action.outcomeOf(delivery);
    this.recorded.push(outcome);
    delivery.recorded = outcome !== undefined;
    delivery.outcome = outcome;
    return Promise.resolve(delivery);
  }

  enter(
    key: string,
    shared: unknown,
    recipients: CampaignRecipient[],
    action: BatchedAction,
    settle: CampaignSettle,
  ): void {
    this.add(key, shared, recipients, action).then(settle.delivered, settle.failed);
  }

  drain(): Promise<void> {
    return Promise.resolve();
  }
}

/** Stands in for `ContactListBatcher`: the next scripted answer for each list created. */
class FakeLists {
  calls = 0;
  constructor(private readonly answers: Array<Error | { ambiguousAttempts?: number }>) {}

  async createExact(name: string, members: ContactMember[], send: ListSend) {
    if (!(await send.markSending())) throw new ClaimLostError(name);
    this.calls++;
    const answer = this.answers.shift();
    if (!answer) throw new Error('no answer scripted');
    if (answer instanceof Error) throw answer;
    const delivery: ContactListDelivery = {
      listId: `list-${this.calls}`,
      name,
      memberCount: members.length,
      ambiguousAttempts: answer.ambiguousAttempts ?? 0,
    };
    return delivery;
  }
}

function setUp(
  answers: { campaigns?: Answer[]; lists?: Array<Error | { ambiguousAttempts?: number }> },
  policy: Policy = 'resend',
) {
  const config = {
    idempotency: { ambiguousSendPolicy: policy },
    batching: {
      pauseOnAuthFailureMs: PAUSE_MS,
      pauseOnVendorFailureMs: PAUSE_MS,
      contactListLatePolicy: 'follow-up',
    },
  } as unknown as AppConfig;
  const campaigns = new FakeCampaigns(answers.campaigns ?? []);
  const fakeLists = new FakeLists(answers.lists ?? []);
  const claims = new MemoryIdempotencyStore(3600);
  // The ticket's claim, held as the runner holds it while it delivers.
  void claims.claim('evt-1:welcome', { instance: 'i-1', handling: 'h-1' }, 60_000);
  const gate = new VendorGate();
  const trips = jest.spyOn(gate, 'trip');
  const metrics = new MetricsService();
  const service = new DeliveryService(
    campaigns as unknown as CampaignBatcher,
    fakeLists as unknown as ContactListBatcher,
    claims,
    new VendorTrouble(config, gate, metrics),
  );
  /** What the exact list's claim recorded, the moment the vendor answered. */
  const recorded = async () => {
    const claim = await claims.claim('evt-1:welcome', { instance: 'i-2', handling: 'h' }, 1_000);
    return claim.kind === 'done' ? [claim.outcome] : [];
  };
  const lists = {
    get calls() {
      return fakeLists.calls;
    },
    recorded,
  };
  const count = async (name: string, labels: Record<string, string>) => {
    const metric = (await metrics.registry.getSingleMetric(name)?.get())?.values ?? [];
    const match = metric.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l));
    return match?.value ?? 0;
  };
  return { service, campaigns, lists, gate, trips, count, claims };
}

const rejected = (status = 422) => new VendorError(`vendor answered ${status}`, false, status);
const unavailable = () => new VendorError('vendor answered 503', true, 503);
const lostAnswer = () =>
  new VendorTimeoutError('headers timeout', 'UND_ERR_HEADERS_TIMEOUT', true, { ambiguous: true });

describe(DeliveryService.name, () => {
  // The gate logs every pause and resumption; these specs pause on purpose.
  beforeAll(() => {
    Logger.overrideLogger(false);
  });
  afterAll(() => {
    Logger.overrideLogger(['log', 'error', 'warn']);
  });

  describe('campaigns', () => {
    it('sends every recipient and records the same outcome it returns', async () => {
      const { service, campaigns, trips } = setUp({ campaigns: [{ sent: [to(1), to(2)] }] });
      const recorded = jest.fn();
      const outcome = await service.execute(campaign(to(1), to(2)), ticket({ recorded }));
      expect(outcome).toEqual({
        status: 'sent',
        requestIds: ['req-1'],
        message: 'ok',
        campaignId: 'c-1',
        recipientCount: 2,
        batchRecipientCount: 10,
      });
      expect(campaigns.recorded).toEqual([outcome]);
      expect(recorded).toHaveBeenCalledTimes(1); // so the caller does not write it again
      expect(trips).not.toHaveBeenCalled();
    });

    it('fails the action for good when our own check refuses the request, without a pause', async () => {
      const { service, campaigns, trips } = setUp({
        campaigns: [new VendorRequestError('campaign refused: subject contains a line break')],
      });
      expect(await service.execute(campaign(to(1)), ticket())).toEqual({
        status: 'failed',
        errorCode: 'INVALID_REQUEST',
        vendorStatus: undefined,
        message: 'campaign refused: subject contains a line break',
      });
      expect(campaigns.calls).toHaveLength(1);
      expect(trips).not.toHaveBeenCalled();
    });

    it('reports a partial send when the vendor refuses some recipients for good', async () => {
      const { service, campaigns } = setUp({
        campaigns: [{ sent: [to(1)], failed: [[to(2), rejected(422)]] }],
      });
      const recorded = jest.fn();
      expect(await service.execute(campaign(to(1), to(2)), ticket({ recorded }))).toEqual({
        status: 'failed',
        errorCode: 'VENDOR_REJECTED',
        vendorStatus: 422,
        message: '1 of 2 recipients sent; vendor answered 422',
      });
      expect(campaigns.recorded).toEqual([undefined]); // not all sent: nothing recorded early
      expect(recorded).not.toHaveBeenCalled(); // the caller records the failure
      expect(campaigns.calls).toHaveLength(1);
    });

    it('pauses for transient trouble, then sends only the recipients that failed', async () => {
      const { service, campaigns, trips, count } = setUp({
        campaigns: [{ sent: [to(1)], failed: [[to(2), unavailable()]] }, { sent: [to(2)] }],
      });
      const outcome = await service.execute(campaign(to(1), to(2)), ticket());
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
      const { service, campaigns, trips } = setUp({
        campaigns: [new VendorAuthError(401), { sent: [to(1)] }],
      });
      expect(await service.execute(campaign(to(1)), ticket())).toMatchObject({ status: 'sent' });
      expect(trips).toHaveBeenCalledWith('auth', PAUSE_MS, 'status 401');
      expect(campaigns.calls).toHaveLength(2);
    });

    it('lets an error that is not the vendor’s surface (a claim lost)', async () => {
      const { service } = setUp({ campaigns: [new ClaimLostError('evt-1:welcome')] });
      await expect(service.execute(campaign(to(1)), ticket())).rejects.toThrow(ClaimLostError);
    });

    it('under policy fail, reports a lost answer as AMBIGUOUS_SEND and does not send again', async () => {
      const { service, campaigns, count } = setUp(
        { campaigns: [{ sent: [], failed: [[to(1), lostAnswer()]], lost: 1 }] },
        'fail',
      );
      const outcome = await service.execute(campaign(to(1)), ticket());
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
      const { service, campaigns } = setUp({
        campaigns: [{ sent: [], failed: [[to(1), lostAnswer()]], lost: 1 }, { sent: [to(1)] }],
      });
      const outcome = await service.execute(campaign(to(1)), ticket());
      expect(campaigns.calls).toHaveLength(2);
      expect(outcome).toMatchObject({ status: 'sent', requestIds: ['req-2'], ambiguous: true });
    });

    it('marks a send ambiguous when the client resent a lost answer itself', async () => {
      const { service, campaigns, count } = setUp({ campaigns: [{ sent: [to(1)], lost: 1 }] });
      const outcome = await service.execute(campaign(to(1)), ticket());
      expect(outcome).toMatchObject({ status: 'sent', ambiguous: true });
      expect(campaigns.recorded).toEqual([outcome]);
      expect(
        await count('mailbridge_ambiguous_sends_total', {
          cause: 'lost-answer',
          resolution: 'resend',
        }),
      ).toBe(1);
    });

    it('marks the outcome ambiguous when an earlier attempt was taken over', async () => {
      const { service, campaigns } = setUp({ campaigns: [{ sent: [to(1)] }] });
      const outcome = await service.execute(campaign(to(1)), ticket({ ambiguous: true }));
      expect(outcome).toMatchObject({ status: 'sent', ambiguous: true });
      expect(campaigns.recorded).toEqual([outcome]);
    });
  });

  describe('startCampaign, the common path of a campaign', () => {
    /** What `startCampaign` told its caller: the sent outcome, or the outcome still to come. */
    function start(service: DeliveryService, action: Action, more: Partial<ActionTicket> = {}) {
      return new Promise<
        | { how: 'sent'; outcome: ActionOutcome; recorded: boolean }
        | { how: 'continued'; outcome: Promise<ActionOutcome> }
      >((told) =>
        service.startCampaign(action as Extract<Action, { kind: 'campaign' }>, ticket(more), {
          sent: (outcome, recorded) => told({ how: 'sent', outcome, recorded }),
          continued: (outcome) => told({ how: 'continued', outcome }),
        }),
      );
    }

    it('comes back sent, with the very outcome recorded, when every recipient is accepted', async () => {
      const { service, campaigns } = setUp({ campaigns: [{ sent: [to(1), to(2)] }] });
      const told = await start(service, campaign(to(1), to(2)));
      expect(told).toEqual({
        how: 'sent',
        recorded: true,
        outcome: {
          status: 'sent',
          requestIds: ['req-1'],
          message: 'ok',
          campaignId: 'c-1',
          recipientCount: 2,
          batchRecipientCount: 10,
        },
      });
      expect(told.how === 'sent' && told.outcome).toBe(campaigns.recorded[0]);
    });

    it('goes on as execute does after a recipient failed, and comes back continued', async () => {
      const { service, campaigns } = setUp({
        campaigns: [{ sent: [to(1)], failed: [[to(2), unavailable()]] }, { sent: [to(2)] }],
      });
      const told = await start(service, campaign(to(1), to(2)));
      expect(told.how).toBe('continued');
      expect(await (told as { outcome: Promise<ActionOutcome> }).outcome).toMatchObject({
        status: 'sent',
        requestIds: ['req-1', 'req-2'],
        recipientCount: 2,
        batchRecipientCount: 20,
      });
      expect(campaigns.calls).toEqual([[to(1), to(2)], [to(2)]]);
    });

    it('comes back continued with the error when the claim was lost', async () => {
      const { service } = setUp({ campaigns: [new ClaimLostError('evt-1:welcome')] });
      const told = await start(service, campaign(to(1)));
      expect(told.how).toBe('continued');
      await expect((told as { outcome: Promise<ActionOutcome> }).outcome).rejects.toThrow(
        ClaimLostError,
      );
    });

    it('leaves a closed gate to the general path, which sends once it reopens', async () => {
      const { service, campaigns, gate } = setUp({ campaigns: [{ sent: [to(1)] }] });
      gate.trip('outage', PAUSE_MS, 'vendor answered 503');
      const told = await start(service, campaign(to(1)));
      expect(told.how).toBe('continued');
      expect(campaigns.calls).toHaveLength(0);
      expect(await (told as { outcome: Promise<ActionOutcome> }).outcome).toMatchObject({
        status: 'sent',
      });
      expect(campaigns.calls).toHaveLength(1);
    });

    it('flags the outcome ambiguous, and counts it once, when the client resent a lost answer', async () => {
      const { service, count } = setUp({ campaigns: [{ sent: [to(1)], lost: 1 }] });
      const told = await start(service, campaign(to(1)));
      expect(told).toMatchObject({ how: 'sent', outcome: { status: 'sent', ambiguous: true } });
      const labels = { cause: 'lost-answer', resolution: 'resend' };
      expect(await count('mailbridge_ambiguous_sends_total', labels)).toBe(1);
    });
  });

  describe('contact lists', () => {
    it('creates an exact list, its outcome recorded the moment the vendor answers', async () => {
      const { service, lists } = setUp({ lists: [{}] });
      const recorded = jest.fn();
      const outcome = await service.execute(exactList, ticket({ recorded }));
      expect(outcome).toEqual({ status: 'created', listId: 'list-1', name: 'vip', memberCount: 1 });
      expect(await lists.recorded()).toEqual([outcome]);
      expect(recorded).toHaveBeenCalledTimes(1);
    });

    it('fails for good on a vendor refusal', async () => {
      const { service, lists, trips } = setUp({ lists: [rejected(400)] });
      expect(await service.execute(exactList, ticket())).toEqual({
        status: 'failed',
        errorCode: 'VENDOR_REJECTED',
        vendorStatus: 400,
        message: 'vendor answered 400',
      });
      expect(lists.calls).toBe(1);
      expect(trips).not.toHaveBeenCalled();
    });

    it('pauses for an outage and creates the list when the gate reopens', async () => {
      const { service, lists, trips } = setUp({ lists: [unavailable(), {}] });
      expect(await service.execute(exactList, ticket())).toMatchObject({ status: 'created' });
      expect(trips).toHaveBeenCalledWith('outage', PAUSE_MS, 'vendor answered 503');
      expect(lists.calls).toBe(2);
    });

    it('under policy fail, reports a lost answer as AMBIGUOUS_SEND', async () => {
      const { service, lists } = setUp({ lists: [lostAnswer()] }, 'fail');
      expect(await service.execute(exactList, ticket())).toMatchObject({
        status: 'failed',
        errorCode: 'AMBIGUOUS_SEND',
        ambiguous: true,
      });
      expect(lists.calls).toBe(1);
    });

    it('under policy resend, creates again after a lost answer and marks it ambiguous', async () => {
      const { service, lists, count } = setUp({ lists: [lostAnswer(), {}] });
      expect(await service.execute(exactList, ticket())).toMatchObject({
        status: 'created',
        ambiguous: true,
      });
      expect(lists.calls).toBe(2);
      expect(
        await count('mailbridge_ambiguous_sends_total', {
          cause: 'lost-answer',
          resolution: 'resend',
        }),
      ).toBe(1);
    });

    it('keeps the ambiguous mark on a failure that follows a lost answer', async () => {
      const { service } = setUp({ lists: [lostAnswer(), rejected(409)] });
      expect(await service.execute(exactList, ticket())).toMatchObject({
        status: 'failed',
        errorCode: 'VENDOR_REJECTED',
        vendorStatus: 409,
        ambiguous: true,
      });
    });
  });
});
