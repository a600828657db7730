import type { ActionOutcome } from '../../src/contracts/action-outcome';
import type { ClaimHolder, IdempotencyStore } from '../../src/idempotency/idempotency.store';

/** What every idempotency store promises, run against each of them. */
// eslint-disable-next-line jest/no-export -- a shared contract, run by the spec of each store
export function idempotencyStoreContract(
  make: (now: () => number) => Promise<IdempotencyStore>,
): void {
  let now = 1_000_000;
  let store: IdempotencyStore;
  let keys = 0;
  const key = () => `e${++keys}:welcome`;
  const sent: ActionOutcome = {
    status: 'sent',
    requestIds: ['r-1'],
    message: 'ok',
    recipientCount: 1,
    batchRecipientCount: 5,
  };
  const a: ClaimHolder = { instance: 'instance-a', handling: 'h1' };
  const a2: ClaimHolder = { instance: 'instance-a', handling: 'h2' };
  const b: ClaimHolder = { instance: 'instance-b', handling: 'h1' };

  beforeAll(async () => {
    store = await make(() => now);
  });
  afterAll(() => store.close());
  beforeEach(async () => {
    await store.heartbeat('instance-a', 60_000);
    await store.heartbeat('instance-b', 60_000);
  });

  it('lets one handling claim and keeps every other handling out, in this process too', async () => {
    const k = key();
    expect(await store.claim(k, a, 10_000)).toEqual({ kind: 'claimed' });
    expect(await store.claim(k, a2, 10_000)).toEqual({ kind: 'busy' }); // same instance, redelivered
    expect(await store.claim(k, b, 10_000)).toEqual({ kind: 'busy' });
  });

  it('answers a finished key with its outcome, whoever asks', async () => {
    const k = key();
    await store.claim(k, a, 10_000);
    await store.complete([{ key: k, outcome: sent }]);
    expect(await store.claim(k, a2, 10_000)).toEqual({ kind: 'done', outcome: sent });
    expect(await store.claim(k, b, 10_000)).toEqual({ kind: 'done', outcome: sent });
  });

  it("never lets an order's in-window mark replace the outcome its list's closer recorded", async () => {
    // The list can close between the order's member being stored and its in-window mark.
    const k = key();
    const created = {
      status: 'created' as const,
      listId: 'l-1',
      name: 'new-customers-20261123T0100Z',
      memberCount: 3,
    };
    await store.claim(k, a, 10_000);
    await store.complete([{ key: k, outcome: created }]);
    await store.complete([{ key: k, outcome: { status: 'in-window', list: created.name } }]);
    expect(await store.claim(k, b, 10_000)).toEqual({ kind: 'done', outcome: created });

    // Before the list closes, the mark is what a redelivery finds.
    const k2 = key();
    await store.claim(k2, a, 10_000);
    await store.complete([{ key: k2, outcome: { status: 'in-window', list: created.name } }]);
    expect(await store.claim(k2, b, 10_000)).toEqual({
      kind: 'done',
      outcome: { status: 'in-window', list: created.name },
    });
  });

  it('records many outcomes at once', async () => {
    const [k1, k2] = [key(), key()];
    await store.claim(k1, a, 10_000);
    await store.claim(k2, a2, 10_000);
    await store.complete([
      { key: k1, outcome: sent },
      { key: k2, outcome: { ...sent, ambiguous: true } },
    ]);
    expect(await store.claim(k1, b, 10_000)).toEqual({ kind: 'done', outcome: sent });
    expect(await store.claim(k2, b, 10_000)).toEqual({
      kind: 'done',
      outcome: { ...sent, ambiguous: true },
    });
  });

  it('frees the claims of an instance that stopped at once, and says nothing was sent', async () => {
    const k = key();
    await store.claim(k, a, 60_000);
    await store.retire('instance-a');
    expect(await store.claim(k, b, 10_000)).toEqual({ kind: 'reclaimed', maybeSent: false });
  });

  it('says a send may have happened when the vanished holder had marked it as being written', async () => {
    const k = key();
    await store.claim(k, a, 60_000);
    expect(await store.markSending([{ key: k, holder: a }])).toEqual(new Set([k]));
    await store.retire('instance-a');
    expect(await store.claim(k, b, 10_000)).toEqual({ kind: 'reclaimed', maybeSent: true });
    // The first holder learns it lost the claim: it must not send, nor keep it alive.
    expect(await store.markSending([{ key: k, holder: a }])).toEqual(new Set());
    expect(await store.renew(k, a, 10_000)).toBe(false);
    expect(await store.renew(k, b, 10_000)).toBe(true);
  });

  it('still says a send may have happened after a taker-over stops before sending', async () => {
    // a marked the send and vanished; b took over and vanished too, before writing anything.
    const k = key();
    const c: ClaimHolder = { instance: 'instance-c', handling: 'h1' };
    await store.heartbeat('instance-c', 60_000);
    await store.claim(k, a, 60_000);
    await store.markSending([{ key: k, holder: a }]);
    await store.retire('instance-a');
    expect(await store.claim(k, b, 60_000)).toEqual({ kind: 'reclaimed', maybeSent: true });
    await store.retire('instance-b');
    expect(await store.claim(k, c, 10_000)).toEqual({ kind: 'reclaimed', maybeSent: true });
  });

  it('still says a send may have happened after a taker-over releases its claim unsent', async () => {
    const k = key();
    await store.claim(k, a, 60_000);
    await store.markSending([{ key: k, holder: a }]);
    await store.retire('instance-a');
    expect(await store.claim(k, b, 60_000)).toEqual({ kind: 'reclaimed', maybeSent: true });
    await store.release(k, b); // its batch failed before the request was written
    expect(await store.claim(k, a2, 10_000)).toEqual({ kind: 'reclaimed', maybeSent: true });
  });

  it("takes over at once a claim this process's earlier handling gave up, keeping its mark", async () => {
    const k = key();
    const first = { instance: 'x', handling: '1' };
    const second = { instance: 'x', handling: '2' };
    const third = { instance: 'x', handling: '3' };
    await store.heartbeat('x', 60_000);
    expect(await store.claim(k, first, 60_000)).toEqual({ kind: 'claimed' });
    expect(await store.markSending([{ key: k, holder: first }])).toEqual(new Set([k]));
    // The same process, its instance alive: without naming the holder it gave up, it waits.
    expect(await store.claim(k, second, 60_000)).toEqual({ kind: 'busy' });
    // Naming another holder than the one that holds it changes nothing.
    expect(await store.claim(k, second, 60_000, third)).toEqual({ kind: 'busy' });
    expect(await store.claim(k, second, 60_000, first)).toEqual({
      kind: 'reclaimed',
      maybeSent: true,
    });
    // Now second's: naming first again takes nothing from it.
    expect(await store.claim(k, third, 60_000, first)).toEqual({ kind: 'busy' });
  });

  it('takes over a claim that outlived its TTL even while its instance beats', async () => {
    const k = key();
    await store.claim(k, a, 1_000);
    now += 1_001;
    expect(await store.claim(k, b, 1_000)).toEqual({ kind: 'reclaimed', maybeSent: false });
  });

  it('keeps a renewed claim beyond its first TTL', async () => {
    const k = key();
    await store.claim(k, a, 1_000);
    now += 900;
    expect(await store.renew(k, a, 1_000)).toBe(true);
    now += 900;
    expect(await store.claim(k, b, 1_000)).toEqual({ kind: 'busy' });
  });

  it('marks only the claims still held by the named holder', async () => {
    const [mine, theirs] = [key(), key()];
    await store.claim(mine, a, 10_000);
    await store.claim(theirs, b, 10_000);
    const held = await store.markSending([
      { key: mine, holder: a },
      { key: theirs, holder: a },
    ]);
    expect(held).toEqual(new Set([mine]));
  });

  it('releases a claim for its holder only', async () => {
    const k = key();
    await store.claim(k, a, 10_000);
    await store.release(k, a2);
    expect(await store.claim(k, b, 10_000)).toEqual({ kind: 'busy' });
    await store.release(k, a);
    expect(await store.claim(k, b, 10_000)).toEqual({ kind: 'claimed' });
  });

  it('keeps the sending mark of a released claim, so the next holder knows it may have been sent', async () => {
    const k = key();
    await store.claim(k, a, 60_000);
    await store.markSending([{ key: k, holder: a }]);
    await store.release(k, a);
    expect(await store.claim(k, a2, 10_000)).toEqual({ kind: 'reclaimed', maybeSent: true });
  });
}
