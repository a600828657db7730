import { AddressKeyer } from '../../src/suppression/address-key';
import { SuppressionList } from '../../src/suppression/suppression-list';
import type { SuppressionStore } from '../../src/suppression/suppression.store';

/** What every suppression store promises, through `SuppressionList`, run against each of them. */
// eslint-disable-next-line jest/no-export -- a shared contract, run by the spec of each store
export function suppressionStoreContract(
  make: () => Promise<{ store: SuppressionStore; stored: () => Promise<string> }>,
): void {
  const keyer = new AddressKeyer('a-key-for-the-contract-only-32-chars');
  let list: SuppressionList;
  let store: SuppressionStore;
  let stored: () => Promise<string>;
  let calls = 0;
  let n = 0;
  const address = () => `Person.${++n}@Example.com`;

  beforeAll(async () => {
    ({ store, stored } = await make());
    const counted: SuppressionStore = {
      add: (...a) => store.add(...a),
      remove: (...a) => store.remove(...a),
      scopesOf: (hashes) => {
        calls++;
        return store.scopesOf(hashes);
      },
    };
    list = new SuppressionList(counted, keyer);
  });

  it('stops marketing mail for a marketing entry, and every mail for an `all` one', async () => {
    const [marketing, all, free] = [address(), address(), address()];
    await list.add(marketing, 'marketing', 'unsubscribed');
    await list.add(all, 'all', 'bounced');
    expect(await list.check([marketing, all, free], 'marketing')).toEqual([true, true, false]);
    expect(await list.check([marketing, all, free], 'transactional')).toEqual([false, true, false]);
  });

  it('compares addresses as batches do: case and Unicode form do not matter', async () => {
    const a = address();
    await list.add(a.toUpperCase(), 'all', 'manual');
    expect(await list.check([a.toLowerCase(), a], 'transactional')).toEqual([true, true]);
  });

  it('asks the store once per check, however many recipients and categories', async () => {
    const many = Array.from({ length: 300 }, () => address());
    await list.add(many[7], 'marketing', 'complained');
    calls = 0;
    const verdicts = await list.checkEach(
      many.map((a, i) => ({ address: a, category: i % 2 ? 'marketing' : 'transactional' })),
    );
    expect(calls).toBe(1);
    expect(verdicts.filter(Boolean)).toHaveLength(1);
    expect(verdicts[7]).toBe(true);
  });

  it('adds and removes idempotently', async () => {
    const a = address();
    await list.add(a, 'marketing', 'unsubscribed');
    await list.add(a, 'marketing', 'unsubscribed');
    await list.remove(a, 'marketing');
    expect(await list.check([a], 'marketing')).toEqual([false]);
    await list.remove(a, 'marketing');
    expect(await list.check([a], 'marketing')).toEqual([false]);
  });

  it('keeps an erasure for good, for every category, with nothing but the keyed hash', async () => {
    const a = address();
    await list.add(a, 'marketing', 'unsubscribed');
    await list.add(a, 'marketing', 'erased');
    await list.remove(a, 'all');
    await list.add(a, 'all', 'manual');
    expect(await list.check([a], 'transactional')).toEqual([true]);
    const text = await stored();
    expect(text.toLowerCase()).not.toContain(a.toLowerCase());
    expect(text).toContain(`all:${keyer.of(a)}`);
    expect(text).not.toContain(`marketing:${keyer.of(a)}`);
  });
}
