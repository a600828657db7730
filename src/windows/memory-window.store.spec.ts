import { windowStoreContract } from '../../test/support/window-store.contract';
import { MemoryWindowStore } from './memory-window.store';

describe(MemoryWindowStore.name, () => {
  windowStoreContract((options, now) => Promise.resolve(new MemoryWindowStore(options, now)));
});
