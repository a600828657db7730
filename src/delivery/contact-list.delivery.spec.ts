import { Logger } from '@nestjs/common';
import {
  lostAnswer,
  PAUSE_MS,
  rejected,
  unavailable,
  vendorTrouble,
} from '../../test/support/vendor-trouble';
import type { ContactMember } from '../email-api/vendor.types';
import { ClaimLostError } from '../idempotency/claim-lost.error';
import { MemoryIdempotencyStore } from '../idempotency/memory-idempotency.store';
import type { ActionTicket, ExactListAction } from './action-ticket';
import type { ContactListBatcher, CreatedList, ListSend } from './contact-list.batcher';
import { ContactListDelivery } from './contact-list.delivery';
import { AddressKeyer } from '../suppression/address-key';
import { MemorySuppressionStore } from '../suppression/memory-suppression.store';
import { SuppressionList } from '../suppression/suppression-list';

const member: ContactMember = { email: 'm@example.com', firstName: 'M' };
const exactList: ExactListAction = {
  kind: 'contact-list',
  mode: 'exact',
  name: 'vip',
  members: [member],
};
const ticket = (): ActionTicket => ({
  claim: { key: 'evt-1:welcome', holder: { instance: 'i-1', handling: 'h-1' } },
  category: 'marketing',
  ambiguous: false,
});

/** Stands in for `ContactListBatcher`: the next scripted answer for each list created. */
class FakeLists {
  calls = 0;
  readonly members: ContactMember[][] = [];
  constructor(private readonly answers: Array<Error | { ambiguousAttempts?: number }>) {}

  async createExact(name: string, members: ContactMember[], send: ListSend): Promise<CreatedList> {
    if (!(await send.markSending())) throw new ClaimLostError(name);
    this.calls++;
    this.members.push(members);
    const answer = this.answers.shift();
    if (!answer) throw new Error('no answer scripted');
    if (answer instanceof Error) throw answer;
    return {
      listId: `list-${this.calls}`,
      name,
      memberCount: members.length,
      ambiguousAttempts: answer.ambiguousAttempts ?? 0,
    };
  }
}

function setUp(
  answers: Array<Error | { ambiguousAttempts?: number }>,
  policy: 'resend' | 'fail' = 'resend',
) {
  const { trouble, trips, count } = vendorTrouble(policy);
  const lists = new FakeLists(answers);
  const claims = new MemoryIdempotencyStore(3600);
  // The ticket's claim, held as the runner holds it while it delivers.
  void claims.claim('evt-1:welcome', { instance: 'i-1', handling: 'h-1' }, 60_000);
  const suppression = new SuppressionList(
    new MemorySuppressionStore(),
    new AddressKeyer('a-key-for-the-spec-only-32-characters'),
  );
  const service = new ContactListDelivery(
    lists as unknown as ContactListBatcher,
    claims,
    trouble,
    suppression,
  );
  return { service, lists, claims, trips, count, suppression };
}

describe(ContactListDelivery.name, () => {
  // The gate logs every pause and resumption; these specs pause on purpose.
  beforeAll(() => {
    Logger.overrideLogger(false);
  });
  afterAll(() => {
    Logger.overrideLogger(['log', 'error', 'warn']);
  });

  it('creates an exact list under its claim, marked sending first, and records nothing', async () => {
    const { service, claims } = setUp([{}]);
    const outcome = await service.deliver(exactList, ticket());
    expect(outcome).toEqual({ status: 'created', listId: 'list-1', name: 'vip', memberCount: 1 });
    // The claim is marked: whoever takes it over (i-1 has no heartbeat here) knows the request
    // may have been written, and it is not recorded `done`.
    const other = { instance: 'i-2', handling: 'h' };
    expect(await claims.claim('evt-1:welcome', other, 1_000)).toEqual({
      kind: 'reclaimed',
      maybeSent: true,
    });
  });

  it('leaves suppressed members out, counting them, and creates the list with the others', async () => {
    const { service, lists, suppression } = setUp([{}]);
    const other: ContactMember = { email: 'o@example.com' };
    await suppression.add('M@example.com', 'marketing', 'complained');
    const outcome = await service.deliver({ ...exactList, members: [member, other] }, ticket());
    expect(lists.members).toEqual([[other]]);
    expect(outcome).toEqual({
      status: 'created',
      listId: 'list-1',
      name: 'vip',
      memberCount: 1,
      suppressedCount: 1,
    });
  });

  it('creates nothing and fails as suppressed when every member is', async () => {
    const { service, lists, suppression } = setUp([{}]);
    await suppression.add('m@example.com', 'all', 'bounced');
    expect(await service.deliver(exactList, ticket())).toMatchObject({
      status: 'failed',
      errorCode: 'INVALID_REQUEST',
      reasonCode: 'SUPPRESSED',
      suppressedCount: 1,
    });
    expect(lists.calls).toBe(0);
  });

  it('sends nothing when the claim was lost before the write', async () => {
    const { service, lists, claims } = setUp([{}]);
    await claims.release('evt-1:welcome', { instance: 'i-1', handling: 'h-1' });
    await expect(service.deliver(exactList, ticket())).rejects.toThrow(ClaimLostError);
    expect(lists.calls).toBe(0);
  });

  it('fails for good on a vendor refusal', async () => {
    const { service, lists, trips } = setUp([rejected(400)]);
    expect(await service.deliver(exactList, ticket())).toEqual({
      status: 'failed',
      errorCode: 'VENDOR_REJECTED',
      vendorStatus: 400,
      message: 'vendor answered 400',
    });
    expect(lists.calls).toBe(1);
    expect(trips).not.toHaveBeenCalled();
  });

  it('pauses for an outage and creates the list when the gate reopens', async () => {
    const { service, lists, trips } = setUp([unavailable(), {}]);
    expect(await service.deliver(exactList, ticket())).toMatchObject({ status: 'created' });
    expect(trips).toHaveBeenCalledWith('outage', PAUSE_MS, 'vendor answered 503');
    expect(lists.calls).toBe(2);
  });

  it('under policy fail, reports a lost answer as AMBIGUOUS_SEND', async () => {
    const { service, lists } = setUp([lostAnswer()], 'fail');
    expect(await service.deliver(exactList, ticket())).toMatchObject({
      status: 'failed',
      errorCode: 'AMBIGUOUS_SEND',
      ambiguous: true,
    });
    expect(lists.calls).toBe(1);
  });

  it('under policy resend, creates again after a lost answer and marks it ambiguous', async () => {
    const { service, lists, count } = setUp([lostAnswer(), {}]);
    expect(await service.deliver(exactList, ticket())).toMatchObject({
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
    const { service } = setUp([lostAnswer(), rejected(409)]);
    expect(await service.deliver(exactList, ticket())).toMatchObject({
      status: 'failed',
      errorCode: 'VENDOR_REJECTED',
      vendorStatus: 409,
      ambiguous: true,
    });
  });
});
