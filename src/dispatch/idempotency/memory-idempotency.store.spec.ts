import type { StoredOutcome } from './idempotency.store';
import { MemoryIdempotencyStore } from './memory-idempotency.store';

describe(MemoryIdempotencyStore.name, () => {
  let now = 1_000;
  const store = new MemoryIdempotencyStore(3600, () => now);
  const sent: StoredOutcome = {
    status: 'sent',
    requestIds: ['r-1'],
    message: 'ok',
    recipientCount: 1,
    batchRecipientCount: 5,
  };

  it('lets one owner claim, keeps others out while the claim lives, and answers with the outcome once done', async () => {
    expect(await store.claim('e1:welcome', 'a', 1000)).toEqual({ kind: 'claimed' });
    expect(await store.claim('e1:welcome', 'b', 1000)).toEqual({ kind: 'busy' });
    expect(await store.claim('e1:welcome', 'a', 1000)).toEqual({ kind: 'claimed' }); // renewal
    await store.complete('e1:welcome', sent);
    expect(await store.claim('e1:welcome', 'b', 1000)).toEqual({ kind: 'done', outcome: sent });
  });

  it('says so when it takes over a claim whose owner vanished', async () => {
    expect(await store.claim('e2:welcome', 'a', 1000)).toEqual({ kind: 'claimed' });
    now += 1001;
    expect(await store.claim('e2:welcome', 'b', 1000)).toEqual({ kind: 'reclaimed' });
  });

  it('frees a released claim at once, for its owner only', async () => {
    await store.claim('e3:welcome', 'a', 1000);
    await store.release('e3:welcome', 'b');
    expect(await store.claim('e3:welcome', 'b', 1000)).toEqual({ kind: 'busy' });
    await store.release('e3:welcome', 'a');
    expect(await store.claim('e3:welcome', 'b', 1000)).toEqual({ kind: 'claimed' });
  });
});
