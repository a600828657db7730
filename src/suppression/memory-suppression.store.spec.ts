import { suppressionStoreContract } from '../../test/support/suppression-store.contract';
import { MemorySuppressionStore } from './memory-suppression.store';

describe(MemorySuppressionStore.name, () => {
  suppressionStoreContract(() => {
    const store = new MemorySuppressionStore();
    // What the store holds, as text: the spec looks for addresses in it.
    const stored = () => Promise.resolve(JSON.stringify([...store.entries]));
    return Promise.resolve({ store, stored });
  });
});
