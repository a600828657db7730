import type { CampaignSendHooks } from '../email-api/vendor.client';
import { StoppingError, VendorError, VendorWithheldError } from '../email-api/vendor.errors';
import type { CampaignRequest, CampaignSendResult } from '../email-api/vendor.types';
import {
  CampaignBatcher,
  type CampaignSender,
  type SendLedger,
  type SuppressionCheck,
} from './campaign.batcher';
import { ClaimLostError } from '../idempotency/claim-lost.error';
import { MemoryIdempotencyStore } from '../idempotency/memory-idempotency.store';

const content = { subject: 'Hi {{FIRST_NAME}}', body: '<p>Hi</p>' };
const recipient = (n: number) => ({ email: `r${n}@example.com`, attributes: { N: String(n) } });

/** A vendor that accepts every request whole and remembers them, asking first as the client does. */
class RecordingSender implements CampaignSender {
  readonly requests: CampaignRequest[] = [];
  readonly recipientJson: Array<readonly string[] | undefined> = [];
  async sendCampaign(
    request: CampaignRequest,
    hooks?: CampaignSendHooks,
    recipientJson?: readonly string[],
  ): Promise<CampaignSendResult> {
    this.recipientJson.push(recipientJson);
    const all = request.recipients.to.map((_, i) => i);
    const allowed = (await hooks?.beforeWrite?.(all)) ?? new Set(all);
    const indexes = all.filter((i) => allowed.has(i));
    const withheld = all.filter((i) => !allowed.has(i));
    this.requests.push({
      ...request,
      recipients: { to: indexes.map((i) => request.recipients.to[i]) },
    });
    const n = this.requests.length;
    return [
      {
        ok: true,
        requestId: `req-${n}`,
        message: 'ok',
        attempts: 1,
        ambiguousAttempts: 0,
        recipientIndexes: indexes,
      },
      ...(withheld.length > 0
        ? [
            {
              ok: false as const,
              error: new VendorWithheldError(),
              attempts: 0,
              ambiguousAttempts: 0,
              recipientIndexes: withheld,
            },
          ]
        : []),
    ];
  }
}

describe(CampaignBatcher.name, () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('gives gathering recipients back at stop, sending nothing, and refuses what enters after', async () => {
    const sender = new RecordingSender();
    const batcher = new CampaignBatcher(sender, { maxRecipients: 10, maxBytes: 1e6, lingerMs: 50 });
    const gathering = batcher.add('k', content, [recipient(1)]);
    batcher.stop();
    await expect(gathering).rejects.toBeInstanceOf(StoppingError);
    await expect(batcher.add('k', content, [recipient(2)])).rejects.toBeInstanceOf(StoppingError);
    await jest.advanceTimersByTimeAsync(100);
    expect(sender.requests).toHaveLength(0);
  });

  it('sends one request when the recipient limit is reached, without waiting for the linger', async () => {
    const sender = new RecordingSender();
    const batcher = new CampaignBatcher(sender, {
      maxRecipients: 3,
      maxBytes: 1e6,
      lingerMs: 10_000,
    });
    const deliveries = [1, 2, 3].map((n) => batcher.add('k', content, [recipient(n)]));
    const results = await Promise.all(deliveries);
    expect(sender.requests).toHaveLength(1);
    expect(sender.requests[0]).toEqual({
      ...content,
      recipients: { to: [recipient(1), recipient(2), recipient(3)] },
    });
    expect(results.map((r) => r.sent[0].requestId)).toEqual(['req-1', 'req-1', 'req-1']);
    expect(results[0].batchRecipientCount).toBe(3);
  });

  it('hands the sender each recipient serialised once, for the request body to reuse', async () => {
    const sender = new RecordingSender();
    const batcher = new CampaignBatcher(sender, { maxRecipients: 3, maxBytes: 1e6, lingerMs: 10 });
    const named = { name: 'Zoë Ünal', email: 'zoe@example.com' };
    await Promise.all([
      batcher.add('k', content, [recipient(1), named]),
      batcher.add('k', content, [recipient(2)]),
    ]);
    expect(sender.recipientJson).toEqual([
      [recipient(1), named, recipient(2)].map((r) => JSON.stringify(r)),
    ]);
  });

  it('counts an event towards maxBytes as its recipients serialise, multi-byte text included', async () => {
    const sender = new RecordingSender();
    const wide = (n: number) => ({ email: `w${n}@example.com`, name: 'Ü'.repeat(40) });
    const bytes = Buffer.byteLength(JSON.stringify([wide(1)]));
    const contentBytes = Buffer.byteLength(JSON.stringify(content));
    // Room for two such events: a third would pass the limit by one byte (counting characters
    // rather than bytes, all three would fit).
    const maxBytes = contentBytes + 3 * bytes - 1;
    const batcher = new CampaignBatcher(sender, { maxRecipients: 100, maxBytes, lingerMs: 10 });
    const deliveries = [1, 2, 3].map((n) => batcher.add('k', content, [wide(n)]));
    await jest.advanceTimersByTimeAsync(10);
    await Promise.all(deliveries);
    expect(sender.requests.map((r) => r.recipients.to.length)).toEqual([2, 1]);
  });

  it('sends what it has when the linger time passes', async () => {
    const sender = new RecordingSender();
    const batcher = new CampaignBatcher(sender, {
      maxRecipients: 100,
      maxBytes: 1e6,
      lingerMs: 50,
    });
    const delivery = batcher.add('k', content, [recipient(1)]);
    await jest.advanceTimersByTimeAsync(49);
    expect(sender.requests).toHaveLength(0);
    await jest.advanceTimersByTimeAsync(1);
    expect((await delivery).sent).toHaveLength(1);
  });

  describe('while the consumer is behind', () => {
    const stretching = (sender: CampaignSender, waiting: () => number, windowRecords = 1_000) =>
      new CampaignBatcher(sender, {
        maxRecipients: 10,
        maxBytes: 1e6,
        lingerMs: 50,
        maxLingerMs: 400,
        waiting,
        windowRecords,
      });
    const add = (batcher: CampaignBatcher, key: string, ...ns: number[]) =>
      batcher.add(key, { ...content, subject: key }, ns.map(recipient));

    it('keeps gathering past the linger while enough records wait to fill it', async () => {
      const sender = new RecordingSender();
      const batcher = stretching(sender, () => 6);
      const first = add(batcher, 'k', 1, 2, 3, 4);
      await jest.advanceTimersByTimeAsync(60);
      expect(sender.requests).toHaveLength(0); // 6 wait: exactly the room left
      const second = add(batcher, 'k', 5, 6, 7);
      await jest.advanceTimersByTimeAsync(60);
      expect(sender.requests).toHaveLength(0);
      const third = add(batcher, 'k', 8, 9, 10); // full: it goes now
      await Promise.all([first, second, third]);
      expect(sender.requests.map((r) => r.recipients.to.length)).toEqual([10]);
    });

    it('sends once its pace could no longer fill it before the longest linger', async () => {
      const sender = new RecordingSender();
      const batcher = stretching(sender, () => 100);
      const delivery = add(batcher, 'k', 1, 2, 3, 4);
      // 4 in 150 ms fills the other 6 in the 250 ms left; 4 in 200 ms no longer does in 200
      await jest.advanceTimersByTimeAsync(199);
      expect(sender.requests).toHaveLength(0);
      await jest.advanceTimersByTimeAsync(1);
      expect((await delivery).sent).toHaveLength(4);
    });

    it('sends at the linger when it fills too slowly, or fewer records wait than it has room for', async () => {
      const sender = new RecordingSender();
      const slowly = stretching(sender, () => 100);
      const one = add(slowly, 'k', 1); // 1 in 50 ms: 9 more would take 450
      await jest.advanceTimersByTimeAsync(50);
      expect((await one).sent).toHaveLength(1);
      const few = stretching(sender, () => 5);
      const four = add(few, 'k', 1, 2, 3, 4);
      await jest.advanceTimersByTimeAsync(50);
      expect((await four).sent).toHaveLength(4);
    });

    it('sends at its next look once the backlog is taken in', async () => {
      const sender = new RecordingSender();
      let waiting = 100;
      const batcher = stretching(sender, () => waiting);
      const delivery = add(batcher, 'k', 1, 2, 3, 4);
      await jest.advanceTimersByTimeAsync(120);
      expect(sender.requests).toHaveLength(0);
      waiting = 0;
      await jest.advanceTimersByTimeAsync(30); // the looks come every linger: 50, 100, 150
      expect((await delivery).sent).toHaveLength(4);
    });

    it('sends at the linger when the requests gathering could not all fill within the window', async () => {
      const sender = new RecordingSender();
      const batcher = stretching(sender, () => 100, 18);
      const a = add(batcher, 'a', 1, 2, 3);
      const b = add(batcher, 'b', 4, 5, 6, 7, 8);
      await jest.advanceTimersByTimeAsync(50); // a: 3 + 5 + room 7 = 15, b: 8 + room 5 = 13
      expect(sender.requests).toHaveLength(0);
      const c = add(batcher, 'c', 9, 10, 11, 12);
      await jest.advanceTimersByTimeAsync(50); // a: 3 + 5 + 4 + room 7 = 19 > 18: a goes
      // b: 5 + 4 + room 5 = 14 fits: it is still gathering, until the longest linger.
      expect(sender.requests.map((r) => r.subject)).toEqual(['a']);
      await jest.advanceTimersByTimeAsync(400);
      await Promise.all([a, b, c]);
      expect(sender.requests.map((r) => r.subject)).toEqual(['a', 'b', 'c']);
    });
  });

  it('keeps batch keys apart and never puts one address twice into a request', async () => {
    const sender = new RecordingSender();
    const batcher = new CampaignBatcher(sender, {
      maxRecipients: 100,
      maxBytes: 1e6,
      lingerMs: 50,
    });
    const a = batcher.add('welcome', content, [recipient(1)]);
    const b = batcher.add('other', { ...content, subject: 'Other' }, [recipient(2)]);
    const again = batcher.add('welcome', content, [
      { ...recipient(1), attributes: { N: 'again' } },
    ]);
    await jest.advanceTimersByTimeAsync(50);
    await Promise.all([a, b, again]);
    expect(sender.requests.map((r) => r.recipients.to.map((t) => t.attributes?.N))).toEqual([
      ['1'],
      ['2'],
      ['again'],
    ]);
  });

  it('flushes before the body would pass the byte limit', async () => {
    const sender = new RecordingSender();
    const size = Buffer.byteLength(JSON.stringify([recipient(1)]));
    const overhead = Buffer.byteLength(JSON.stringify(content));
    const batcher = new CampaignBatcher(sender, {
      maxRecipients: 100,
      maxBytes: overhead + 2 * size,
      lingerMs: 50,
    });
    const all = [1, 2, 3].map((n) => batcher.add('k', content, [recipient(n)]));
    await jest.advanceTimersByTimeAsync(50);
    await Promise.all(all);
    expect(sender.requests.map((r) => r.recipients.to.length)).toEqual([2, 1]);
  });

  it("maps each caller's recipients to the outcome of the request that carried them", async () => {
    const failure = new VendorError('vendor answered 400', false, 400);
    const sender: CampaignSender = {
      sendCampaign: () =>
        Promise.resolve([
          {
            ok: true,
            requestId: 'req-a',
            message: 'ok',
            attempts: 1,
            ambiguousAttempts: 0,
            recipientIndexes: [0, 1],
          },
          { ok: false, error: failure, attempts: 1, ambiguousAttempts: 0, recipientIndexes: [2] },
        ]),
    };
    const batcher = new CampaignBatcher(sender, {
      maxRecipients: 100,
      maxBytes: 1e6,
      lingerMs: 10,
    });
    const first = batcher.add('k', content, [recipient(1)]);
    const second = batcher.add('k', content, [recipient(2), recipient(3)]);
    await jest.advanceTimersByTimeAsync(10);
    expect(await first).toEqual({
      sent: [{ recipient: recipient(1), requestId: 'req-a', message: 'ok' }],
      failed: [],
      suppressed: [],
      batchRecipientCount: 2,
      ambiguousAttempts: 0,
    });
    const mixed = await second;
    expect(mixed.sent.map((s) => s.recipient.email)).toEqual(['r2@example.com']);
    expect(mixed.failed).toEqual([{ recipient: recipient(3), error: failure }]);
    expect(mixed.batchRecipientCount).toBe(3);
  });

  describe('with a suppression check', () => {
    const claim = (n: number) => ({
      key: `e${n}:t`,
      holder: { instance: 'i', handling: `h${n}` },
    });

    /** A check that suppresses the addresses given, for every category or marketing only. */
    function checkOf(all: string[], marketingOnly: string[] = []) {
      const calls: Array<Array<{ address: string; category: string }>> = [];
      const check: SuppressionCheck = {
        checkEach: (asked) => {
          calls.push([...asked]);
          return Promise.resolve(
            asked.map(
              ({ address, category }) =>
                all.includes(address) ||
                (category === 'marketing' && marketingOnly.includes(address)),
            ),
          );
        },
      };
      return { check, calls };
    }

    /** A batcher with no ledger, tracing or fake clock, asking `check` before each write. */
    const checkedBatcher = (sender: RecordingSender, check: SuppressionCheck) =>
      new CampaignBatcher(
        sender,
        { maxRecipients: 10, maxBytes: 1e6, lingerMs: 10 },
        { suppression: check },
      );

    it('withholds suppressed recipients, asking once per request, and tells each caller which', async () => {
      jest.useRealTimers();
      const sender = new RecordingSender();
      const { check, calls } = checkOf(['r2@example.com'], ['r3@example.com']);
      const batcher = checkedBatcher(sender, check);
      const marketing = batcher.add('k', content, [recipient(1), recipient(2)], {
        claim: claim(1),
        category: 'marketing',
      });
      const transactional = batcher.add('k', content, [recipient(3)], {
        claim: claim(2),
        category: 'transactional',
      });
      const [first, second] = await Promise.all([marketing, transactional]);
      expect(calls).toHaveLength(1); // one round trip for the whole request
      expect(sender.requests.map((r) => r.recipients.to.map((t) => t.email))).toEqual([
        ['r1@example.com', 'r3@example.com'],
      ]);
      expect(first.sent.map((s) => s.recipient)).toEqual([recipient(1)]);
      expect(first.suppressed).toEqual([recipient(2)]);
      expect(first.failed).toEqual([]);
      // Suppressed for marketing only: a transactional template still reaches it.
      expect(second.sent.map((s) => s.recipient)).toEqual([recipient(3)]);
      expect(second.suppressed).toEqual([]);
    });

    it('writes nothing when every recipient is suppressed, and marks no claim', async () => {
      jest.useRealTimers();
      const sender = new RecordingSender();
      const marked: string[] = [];
      const ledger: SendLedger = {
        markSending: (claims) => {
          marked.push(...claims.map((c) => c.key));
          return Promise.resolve(new Set(claims.map((c) => c.key)));
        },
      };
      const { check } = checkOf(['r1@example.com']);
      const batcher = new CampaignBatcher(
        sender,
        { maxRecipients: 10, maxBytes: 1e6, lingerMs: 10 },
        { ledger, suppression: check },
      );
      const results = await batcher.add('k', content, [recipient(1)], {
        claim: claim(1),
        category: 'transactional',
      });
      expect(results.suppressed).toEqual([recipient(1)]);
      expect(results.sent).toEqual([]);
      expect(marked).toEqual([]);
      expect(sender.requests[0].recipients.to).toEqual([]);
    });

    it('sends nothing when the list cannot be read: the action claims again', async () => {
      jest.useRealTimers();
      const sender = new RecordingSender();
      const check: SuppressionCheck = { checkEach: () => Promise.reject(new Error('down')) };
      const batcher = checkedBatcher(sender, check);
      const results = batcher.add('k', content, [recipient(1)], {
        claim: claim(1),
        category: 'marketing',
      });
      await expect(results).rejects.toBeInstanceOf(ClaimLostError);
      expect(sender.requests[0].recipients.to).toEqual([]);
    });
  });

  describe('with a ledger', () => {
    const claim = (n: number) => ({
      key: `e${n}:welcome`,
      holder: { instance: 'i', handling: `h${n}` },
    });

    it('marks each request just before it is written, and tells each caller the moment its recipients are answered', async () => {
      jest.useRealTimers();
      const store = new MemoryIdempotencyStore(3600);
      await store.heartbeat('i', 60_000);
      for (const n of [1, 2]) await store.claim(claim(n).key, claim(n).holder, 60_000);
      const log: string[] = [];
      const ledger: SendLedger = {
        markSending: (claims) => {
          log.push(`mark ${claims.map((c) => c.key).join(',')}`);
          return store.markSending(claims);
        },
      };
      let answerSecond: () => void = () => undefined;
      const chunk = (i: number, ambiguousAttempts = 0) => ({
        ok: true as const,
        requestId: `req-${i}`,
        message: 'ok',
        attempts: 1 + ambiguousAttempts,
        ambiguousAttempts,
        recipientIndexes: [i],
      });
      const sender: CampaignSender = {
        async sendCampaign(_request, hooks) {
          // Two requests of one recipient each, as the client splits them.
          await hooks?.beforeWrite?.([0]);
          log.push('write 0');
          hooks?.onChunk?.(chunk(0));
          await hooks?.beforeWrite?.([1]);
          log.push('write 1');
          await new Promise<void>((resolve) => (answerSecond = resolve));
          hooks?.onChunk?.(chunk(1, 1));
          return [chunk(0), chunk(1, 1)];
        },
      };
      const batcher = new CampaignBatcher(
        sender,
        { maxRecipients: 2, maxBytes: 1e6, lingerMs: 10_000 },
        { ledger },
      );
      const first = batcher.add('k', content, [recipient(1)], {
        claim: claim(1),
        category: 'marketing',
      });
      const second = batcher.add('k', content, [recipient(2)], {
        claim: claim(2),
        category: 'marketing',
      });
      first.then(
        () => log.push('told 1'),
        () => undefined,
      );
      await waitUntil(() => log.includes('write 1'));
      expect(log).toEqual([
        `mark ${claim(1).key}`,
        'write 0',
        `mark ${claim(2).key}`,
        'told 1', // before the second request is answered: its owner records it at once
        'write 1',
      ]);
      expect((await first).sent).toHaveLength(1);
      answerSecond();
      expect((await second).ambiguousAttempts).toBe(1);
      // Marked, not recorded: recording the outcome is the caller's.
      const other = { instance: 'j', handling: 'x' };
      await store.retire('i');
      expect(await store.claim(claim(1).key, other, 1)).toEqual({
        kind: 'reclaimed',
        maybeSent: true,
      });
    });

    it('gives every caller not yet told the error when the send throws', async () => {
      jest.useRealTimers();
      const refused = new VendorError('campaign refused: subject contains a line break', false);
      const sender: CampaignSender = { sendCampaign: () => Promise.reject(refused) };
      const batcher = new CampaignBatcher(sender, {
        maxRecipients: 2,
        maxBytes: 1e6,
        lingerMs: 10_000,
      });
      const both = [1, 2].map((n) =>
        batcher.add('k', content, [recipient(n)], { claim: claim(n), category: 'marketing' }),
      );
      for (const added of both) await expect(added).rejects.toBe(refused);
    });

    it('does not send the recipients of a claim that was taken over, and says so', async () => {
      jest.useRealTimers();
      const store = new MemoryIdempotencyStore(3600);
      await store.heartbeat('i', 60_000);
      await store.claim(claim(1).key, claim(1).holder, 60_000);
      await store.claim(claim(2).key, claim(2).holder, 60_000);
      await store.retire('i');
      await store.claim(claim(2).key, { instance: 'j', handling: 'y' }, 60_000); // taken over
      const sender = new RecordingSender();
      const batcher = new CampaignBatcher(
        sender,
        { maxRecipients: 2, maxBytes: 1e6, lingerMs: 10_000 },
        { ledger: store },
      );
      const kept = batcher.add('k', content, [recipient(1)], {
        claim: claim(1),
        category: 'marketing',
      });
      const lost = batcher.add('k', content, [recipient(2)], {
        claim: claim(2),
        category: 'marketing',
      });
      await expect(lost).rejects.toBeInstanceOf(ClaimLostError);
      expect((await kept).sent).toHaveLength(1);
      expect(sender.requests.map((r) => r.recipients.to.map((t) => t.email))).toEqual([
        ['r1@example.com'],
      ]);
    });
  });
});

async function waitUntil(check: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met within 5 s');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
