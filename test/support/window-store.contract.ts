import type { ContactMember } from '../../src/email-api/vendor.types';
import type {
  ListWindow,
  WindowEntry,
  WindowStore,
  WindowStoreOptions,
} from '../../src/windows/window.store';

/** Makes a store with these options on this clock (ms since the epoch, moved by the spec). */
// eslint-disable-next-line jest/no-export -- a shared contract, run by the spec of each store
export type WindowStoreMaker = (
  options: WindowStoreOptions,
  now: () => number,
) => Promise<WindowStore>;

/** What every window store promises, run against each of them. */
// eslint-disable-next-line jest/no-export -- a shared contract, run by the spec of each store
export function windowStoreContract(make: WindowStoreMaker): void {
  const linger = 1_000;
  const options: WindowStoreOptions = {
    lingerMs: linger,
    maxMembers: 3,
    latePolicy: 'follow-up',
    retentionSeconds: 3_600,
  };
  // Close to the real time: Redis expires keys by its own clock.
  let now = Date.now();
  let windows = 0;
  const stores: WindowStore[] = [];
  const storeWith = async (overrides: Partial<WindowStoreOptions> = {}, clock = () => now) => {
    const store = await make({ ...options, ...overrides }, clock);
    stores.push(store);
    return store;
  };
  const window = (endIn = 10_000): ListWindow => ({
    name: `w${++windows}-${Date.now()}`,
    end: now + endIn,
  });
  const member = (n: number, extra: Partial<ContactMember> = {}): ContactMember => ({
    email: `buyer${n}@example.com`,
    ...extra,
  });
  const entry = (w: ListWindow, order: number, who = order, present = w): WindowEntry => ({
    window: w,
    present,
    order: {
      ref: `o${order}:new-customers`,
      eventId: `o${order}`,
      eventType: 'order.placed.v1',
      template: 'new-customers',
      key: null,
      headers: { traceparent: `00-${order}` },
    },
    address: `buyer${who}@example.com`,
    member: member(who, { firstName: `Order${order}` }),
  });

  afterAll(async () => {
    for (const store of stores) await store.close();
  });

  it('stores an order once, however often it comes, and a repeat address as one member', async () => {
    const store = await storeWith();
    const w = window();
    expect(await store.add(entry(w, 1))).toEqual({ status: 'added', list: w.name });
    expect(await store.add(entry(w, 1))).toEqual({ status: 'duplicate', list: w.name });
    expect(await store.add(entry(w, 2, 1))).toEqual({ status: 'added', list: w.name });
    now = w.end + linger;
    const taken = await store.take('a', 5_000);
    expect(taken?.name).toBe(w.name);
    // One member (the latest details win), two orders to answer.
    expect(taken?.members).toEqual([member(1, { firstName: 'Order2' })]);
    expect(taken?.orders.map((o) => o.ref).sort()).toEqual([
      'o1:new-customers',
      'o2:new-customers',
    ]);
    expect(taken?.orders[0].headers.traceparent).toMatch(/^00-/);
    await store.published(w.name, 'a');
  });

  it('forgets an erased address in every list not yet created, whatever its case', async () => {
    const store = await storeWith();
    const [a, b] = [window(), window(20_000)];
    await store.add(entry(a, 901));
    await store.add(entry(a, 902));
    await store.add(entry(b, 903, 901));
    expect(await store.forget('Buyer901@Example.COM')).toBe(2);
    expect(await store.forget('buyer901@example.com')).toBe(0);
    now = b.end + linger;
    const taken = new Map<string, ContactMember[]>();
    for (let t = await store.take('a', 5_000); t; t = await store.take('a', 5_000)) {
      taken.set(t.name, t.members);
      await store.published(t.name, 'a');
    }
    expect(taken.get(a.name)).toEqual([member(902, { firstName: 'Order902' })]);
    // Its order stays, to be answered: only the member is gone.
    expect(taken.get(b.name)).toEqual([]);
  });

  it('is due a linger after its window ends, not before', async () => {
    const store = await storeWith();
    const w = window();
    await store.add(entry(w, 3));
    expect(await store.nextDue()).toBeLessThanOrEqual(w.end + linger);
    now = w.end + linger - 1;
    expect(await store.take('a', 5_000)).toBeUndefined();
    now = w.end + linger;
    expect((await store.take('a', 5_000))?.name).toBe(w.name);
    await store.published(w.name, 'a');
  });

  it('gathers a window first heard of after its end for a linger from then', async () => {
    const store = await storeWith();
    const w = window(-5_000);
    await store.add(entry(w, 23));
    expect(await store.take('a', 5_000)).toBeUndefined();
    now += linger;
    expect((await store.take('a', 5_000))?.name).toBe(w.name);
    await store.published(w.name, 'a');
  });

  it('puts a late order into a numbered follow-up list, due a linger later (follow-up)', async () => {
    const store = await storeWith();
    const w = window();
    await store.add(entry(w, 4));
    now = w.end + linger;
    await store.take('a', 60_000);
    expect(await store.add(entry(w, 5))).toEqual({ status: 'late', list: `${w.name}-late-1` });
    expect(await store.add(entry(w, 6))).toEqual({ status: 'late', list: `${w.name}-late-1` });
    expect(await store.take('b', 5_000)).toBeUndefined(); // the follow-up waits its linger
    now += linger;
    const followUp = await store.take('b', 5_000);
    expect(followUp?.name).toBe(`${w.name}-late-1`);
    expect(followUp?.orders.map((o) => o.eventId).sort()).toEqual(['o5', 'o6']);
    // Once that one is taken too, the next late order opens `-late-2`.
    expect((await store.add(entry(w, 7))).list).toBe(`${w.name}-late-2`);
    await store.published(w.name, 'a');
    await store.published(`${w.name}-late-1`, 'b');
  });

  it('puts a late order into the window of the present (next-window)', async () => {
    const store = await storeWith({ latePolicy: 'next-window' });
    const w = window();
    await store.add(entry(w, 8));
    now = w.end + linger;
    await store.take('a', 60_000);
    const present = { name: `${w.name}-present`, end: now + 10_000 };
    expect(await store.add(entry(w, 9, 9, present))).toEqual({
      status: 'next-window',
      list: present.name,
    });
    // The same order again: still one member, where it went.
    expect(await store.add(entry(w, 9, 9, present))).toEqual({
      status: 'duplicate',
      list: present.name,
    });
    now = present.end + linger;
    const next = await store.take('b', 5_000);
    expect(next?.name).toBe(present.name);
    expect(next?.members).toEqual([member(9, { firstName: 'Order9' })]);
    await store.published(w.name, 'a');
    await store.published(present.name, 'b');
  });

  it('closes a full list at once and goes on in a continuation, due with the window', async () => {
    const store = await storeWith();
    const w = window();
    for (const n of [10, 11, 12]) expect((await store.add(entry(w, n))).list).toBe(w.name);
    // A repeat address is no new member: it still fits.
    expect((await store.add(entry(w, 13, 10))).list).toBe(w.name);
    expect(await store.add(entry(w, 14))).toEqual({ status: 'added', list: `${w.name}-2` });
    const full = await store.take('a', 60_000);
    expect(full?.name).toBe(w.name);
    expect(full?.members).toHaveLength(3);
    expect(await store.take('a', 60_000)).toBeUndefined(); // the continuation waits for the window
    now = w.end + linger;
    const rest = await store.take('a', 60_000);
    expect(rest?.name).toBe(`${w.name}-2`);
    expect(rest?.members).toEqual([member(14, { firstName: 'Order14' })]);
    await store.published(w.name, 'a');
    await store.published(`${w.name}-2`, 'a');
  });

  it('places the orders of one turn as if they came one after another', async () => {
    const store = await storeWith();
    const [w, other] = [window(), window()];
    // Together: a repeat order, a repeat address, a fourth member that overflows, another window.
    const placed = await Promise.all(
      [
        entry(w, 24),
        entry(w, 24),
        entry(w, 25),
        entry(w, 26, 24),
        entry(w, 27),
        entry(w, 28),
        entry(other, 29),
      ].map((e) => store.add(e)),
    );
    expect(placed).toEqual([
      { status: 'added', list: w.name },
      { status: 'duplicate', list: w.name },
      { status: 'added', list: w.name },
      { status: 'added', list: w.name },
      { status: 'added', list: w.name },
      { status: 'added', list: `${w.name}-2` },
      { status: 'added', list: other.name },
    ]);
    const full = await store.take('a', 60_000);
    expect(full?.name).toBe(w.name);
    expect(full?.members.map((m) => m.firstName).sort()).toEqual(['Order25', 'Order26', 'Order27']);
    expect(full?.orders.map((o) => o.eventId).sort()).toEqual(['o24', 'o25', 'o26', 'o27']);
    now = Math.max(w.end, other.end) + linger;
    const rest = [await store.take('a', 60_000), await store.take('a', 60_000)];
    expect(rest.map((t) => t?.name).sort()).toEqual([`${w.name}-2`, other.name].sort());
    for (const name of [w.name, `${w.name}-2`, other.name]) await store.published(name, 'a');
  });

  it('gives a due list to exactly one of many concurrent takers', async () => {
    const store = await storeWith();
    const w = window();
    await store.add(entry(w, 15));
    now = w.end + linger;
    const taken = await Promise.all(
      Array.from({ length: 10 }, (_, i) => store.take(`owner-${i}`, 60_000)),
    );
    const winners = taken.flatMap((t, i) => (t?.name === w.name ? [i] : []));
    expect(winners).toHaveLength(1);
    await store.published(w.name, `owner-${winners[0]}`);
  });

  it('lets another owner take a list over once the lease lapsed, saying it may have been sent', async () => {
    const store = await storeWith();
    const w = window();
    await store.add(entry(w, 16));
    now = w.end + linger;
    expect((await store.take('a', 5_000))?.takenOver).toBe(false);
    expect(await store.renew(w.name, 'a', 5_000)).toBe(true);
    expect(await store.markSending(w.name, 'a')).toBe(true);
    now += 4_000;
    expect(await store.take('b', 5_000)).toBeUndefined(); // the lease still runs
    now += 2_000;
    const over = await store.take('b', 5_000);
    expect(over).toMatchObject({ name: w.name, maybeSent: true, takenOver: true });
    // The earlier owner has lost it: nothing it says counts any more.
    expect(await store.markSending(w.name, 'a')).toBe(false);
    expect(await store.created(w.name, 'a', 'list-a', false)).toBe(false);
    expect(await store.renew(w.name, 'a', 5_000)).toBe(false);
    await store.published(w.name, 'b');
  });

  it('never creates a list again once created: the next owner gets its id', async () => {
    const store = await storeWith();
    const w = window();
    await store.add(entry(w, 17));
    now = w.end + linger;
    await store.take('a', 5_000);
    await store.markSending(w.name, 'a');
    expect(await store.created(w.name, 'a', 'list-17', true)).toBe(true);
    now += 5_000;
    const over = await store.take('b', 5_000);
    expect(over).toMatchObject({ listId: 'list-17', ambiguous: true, takenOver: true });
    expect(await store.markSending(w.name, 'b')).toBe(false); // created: no second request
    expect(await store.published(w.name, 'b')).toBe(true);
    now += 60_000;
    expect(await store.take('c', 5_000)).toBeUndefined();
    expect(await store.add(entry(w, 17))).toEqual({ status: 'duplicate', list: w.name });
  });

  it('gives a list back at shutdown: due again, a sending mark kept', async () => {
    const store = await storeWith();
    const [w1, w2] = [window(), window()];
    await store.add(entry(w1, 18));
    await store.add(entry(w2, 19));
    now = Math.max(w1.end, w2.end) + linger;
    const first = (await store.take('a', 60_000))!;
    const second = (await store.take('a', 60_000))!;
    await store.markSending(second.name, 'a');
    await store.giveBack(first.name, 'a', now);
    await store.giveBack(second.name, 'a', now);
    const again = [await store.take('b', 5_000), await store.take('b', 5_000)];
    expect(again.map((t) => [t?.name, t?.maybeSent]).sort()).toEqual(
      [
        [first.name, false],
        [second.name, true],
      ].sort(),
    );
    for (const t of again) await store.published(t!.name, 'b');
  });

  it('keeps a day-long window (due a day ahead) and counts what is open', async () => {
    const store = await storeWith();
    const before = await store.openCounts();
    const day = window(86_400_000);
    await store.add(entry(day, 20));
    await store.add(entry(day, 21));
    expect(await store.openCounts()).toEqual({
      lists: before.lists + 1,
      members: before.members + 2,
    });
    now += 86_400_000 - 1;
    expect(await store.take('a', 5_000)).toBeUndefined();
    now = day.end + linger;
    const taken = await store.take('a', 5_000);
    expect(taken?.members).toHaveLength(2);
    await store.published(day.name, 'a');
    expect(await store.openCounts()).toEqual(before);
  });

  it('forgets a published list after the retention', async () => {
    const store = await storeWith({ retentionSeconds: 1, lingerMs: 0 }, Date.now);
    const w = { name: `w-expiring-${Date.now()}`, end: Date.now() };
    const e = { ...entry(w, 22), window: w, present: w };
    await store.add(e);
    const taken = await store.take('a', 5_000);
    expect(taken?.name).toBe(w.name);
    await store.published(w.name, 'a');
    expect((await store.add(e)).status).toBe('duplicate');
    const started = Date.now();
    let again = (await store.add(e)).status;
    while (again === 'duplicate' && Date.now() - started < 10_000) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      again = (await store.add(e)).status;
    }
    expect(again).toBe('added');
    await store.take('a', 5_000);
    await store.published(w.name, 'a');
  });
}
