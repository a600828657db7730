import { VendorError } from '../email-api/vendor.errors';
import type { ContactListRequest } from '../email-api/vendor.types';
import {
  ContactListBatcher,
  type ContactListBatcherOptions,
  type ContactListCreator,
  type ListLedger,
} from './contact-list.batcher';
import { ClaimLostError } from '../idempotency/claim-lost.error';
import { MemoryIdempotencyStore } from '../idempotency/memory-idempotency.store';

class RecordingCreator implements ContactListCreator {
  readonly lists: ContactListRequest[] = [];
  fail = 0;
  createContactList(request: ContactListRequest) {
    if (this.fail > 0) {
      this.fail -= 1;
      return Promise.reject(new Error('vendor down'));
    }
    this.lists.push(request);
    return Promise.resolve({
      id: `00000000-0000-4000-8000-00000000000${this.lists.length}`,
      ambiguousAttempts: 0,
    });
  }
}

const window = { start: new Date('2026-11-21T10:00:00Z'), end: new Date('2026-11-21T10:01:00Z') };
const member = (n: number, extra = {}) => ({ email: `m${n}@example.com`, ...extra });

/** Options with a 30 s clock skew, as configured by default; each test names what it varies. */
function options(
  o: Pick<ContactListBatcherOptions, 'maxMembers' | 'lingerMs' | 'namePattern'>,
): ContactListBatcherOptions {
  return { ...o, clockSkewMs: 30_000 };
}

describe(ContactListBatcher.name, () => {
  beforeEach(() => jest.useFakeTimers({ now: new Date('2026-11-21T10:00:30Z') }));
  afterEach(() => jest.useRealTimers());

  it('creates one list per window, after the window closed and the linger passed', async () => {
    const creator = new RecordingCreator();
    const batcher = new ContactListBatcher(
      creator,
      options({
        maxMembers: 100,
        lingerMs: 500,
        namePattern: 'new-customers-{window}',
      }),
    );
    const a = batcher.addToWindow('new-customers', window, [member(1)]);
    const b = batcher.addToWindow('new-customers', window, [member(2)]);
    await jest.advanceTimersByTimeAsync(30_000 + 499);
    expect(creator.lists).toHaveLength(0);
    await jest.advanceTimersByTimeAsync(1);
    const [ra, rb] = await Promise.all([a, b]);
    expect(creator.lists).toEqual([
      { name: 'new-customers-20261121T1000Z', members: [member(1), member(2)] },
    ]);
    expect(ra).toEqual(rb);
    expect(ra.memberCount).toBe(2);
  });

  it('takes a window far ahead of its clock to be the current one, and one near as it is', async () => {
    const creator = new RecordingCreator();
    const shared = options({ maxMembers: 100, lingerMs: 0, namePattern: 'l-{window}' });
    const batcher = new ContactListBatcher(creator, shared);
    const at = (iso: string) => ({ start: new Date(iso), end: new Date(Date.parse(iso) + 60_000) });
    // The clock reads 10:00:30: an order "placed" at 12:00 would otherwise wait two hours.
    const farAhead = batcher.addToWindow('l', at('2026-11-21T12:00:00Z'), [member(1)]);
    const nearAhead = batcher.addToWindow('l', at('2026-11-21T10:01:00Z'), [member(2)]);
    await jest.advanceTimersByTimeAsync(30_000);
    expect((await farAhead).name).toBe('l-20261121T1000Z');
    expect(creator.lists.map((l) => l.name)).toEqual(['l-20261121T1000Z']);
    await jest.advanceTimersByTimeAsync(60_000);
    expect((await nearAhead).name).toBe('l-20261121T1001Z');
  });

  it('keeps a repeated address once, with its latest details', async () => {
    const creator = new RecordingCreator();
    const batcher = new ContactListBatcher(
      creator,
      options({
        maxMembers: 100,
        lingerMs: 0,
        namePattern: 'l-{window}',
      }),
    );
    const first = batcher.addToWindow('l', window, [member(1, { latestOrderId: 'A' })]);
    const second = batcher.addToWindow('l', window, [member(1, { latestOrderId: 'B' })]);
    await batcher.drain();
    await Promise.all([first, second]);
    expect(creator.lists[0].members).toEqual([member(1, { latestOrderId: 'B' })]);
  });

  it('continues a full window in a further list, and a failed creation keeps its name', async () => {
    const creator = new RecordingCreator();
    creator.fail = 1;
    const batcher = new ContactListBatcher(
      creator,
      options({
        maxMembers: 2,
        lingerMs: 0,
        namePattern: 'l-{window}',
      }),
    );
    await expect(
      Promise.all([
        batcher.addToWindow('l', window, [member(1)]),
        batcher.addToWindow('l', window, [member(2)]),
      ]),
    ).rejects.toThrow('vendor down');
    await Promise.all([
      batcher.addToWindow('l', window, [member(1)]),
      batcher.addToWindow('l', window, [member(2)]),
    ]);
    const third = batcher.addToWindow('l', window, [member(3)]);
    await batcher.drain();
    await third;
    expect(creator.lists.map((l) => l.name)).toEqual(['l-20261121T1000Z', 'l-20261121T1000Z-2']);
  });

  it("marks an exact list's claim only once its request holds a token, and sends nothing for a lost claim", async () => {
    const store = new MemoryIdempotencyStore(3600);
    const steps: string[] = [];
    const ledger: ListLedger = {
      markSending: (claims) => {
        steps.push('mark sending');
        return store.markSending(claims);
      },
      complete: (outcomes) => store.complete(outcomes),
      nextSequence: (name) => store.nextSequence(name),
    };
    const creator: ContactListCreator = {
      async createContactList(_request, hooks) {
        steps.push('token'); // where the client waits for the shared budget
        await hooks?.beforeWrite?.();
        steps.push('write');
        return { id: '00000000-0000-4000-8000-000000000001', ambiguousAttempts: 0 };
      },
    };
    const batcher = new ContactListBatcher(
      creator,
      options({ maxMembers: 10, lingerMs: 0, namePattern: 'l-{window}' }),
      ledger,
    );
    const mine = { instance: 'i1', handling: 'h1' };
    const actionOn = (key: string) => ({
      claim: { key, holder: mine },
      outcomeOf: () => ({ status: 'created' as const, listId: 'x', name: 'n', memberCount: 1 }),
    });
    await store.claim('e1:list', mine, 60_000);

    await batcher.createExact('Newsletter', [member(1)], actionOn('e1:list'));
    expect(steps).toEqual(['token', 'mark sending', 'write']);

    steps.length = 0;
    await store.claim('e2:list', { instance: 'i2', handling: 'h1' }, 60_000);
    await expect(
      batcher.createExact('Other', [member(2)], actionOn('e2:list')),
    ).rejects.toBeInstanceOf(ClaimLostError);
    expect(steps).toEqual(['token', 'mark sending']);
  });

  it('never creates a name twice, across instances sharing a store or after a lost answer', async () => {
    const store = new MemoryIdempotencyStore(3600);
    const creator = new RecordingCreator();
    const shared = options({ maxMembers: 100, lingerMs: 0, namePattern: 'l-{window}' });
    // Two replicas (or one before and after a restart) with the same window.
    const one = new ContactListBatcher(creator, shared, store);
    const two = new ContactListBatcher(creator, shared, store);
    const a = one.addToWindow('l', window, [member(1)]);
    const b = two.addToWindow('l', window, [member(2)]);
    await Promise.all([one.drain(), two.drain()]);
    await Promise.all([a, b]);
    // A timeout after the request was written: the list may exist, so its name is not reused.
    const lost = new VendorError('headers timeout', true, undefined, { ambiguous: true });
    const failing = { createContactList: () => Promise.reject(lost) };
    const three = new ContactListBatcher(failing, shared, store);
    const c = three.addToWindow('l', window, [member(3)]);
    await three.drain();
    await expect(c).rejects.toBe(lost);
    const d = one.addToWindow('l', window, [member(3)]);
    await one.drain();
    await d;
    expect(creator.lists.map((l) => l.name).sort()).toEqual([
      'l-20261121T1000Z',
      'l-20261121T1000Z-2',
      'l-20261121T1000Z-4',
    ]);
  });

  it('names windows shorter than a minute to the second, so two of one minute never share a name', async () => {
    const creator = new RecordingCreator();
    const batcher = new ContactListBatcher(
      creator,
      options({
        maxMembers: 100,
        lingerMs: 0,
        namePattern: 'l-{window}',
      }),
    );
    const at = (s: number) => new Date(Date.parse('2026-11-21T10:00:00Z') + s * 1000);
    const lists = [0, 10].map((s) =>
      batcher.addToWindow('l', { start: at(s), end: at(s + 10) }, [member(s)]),
    );
    await batcher.drain();
    await Promise.all(lists);
    expect(creator.lists.map((l) => l.name).sort()).toEqual([
      'l-20261121T100000Z',
      'l-20261121T100010Z',
    ]);
  });
});
