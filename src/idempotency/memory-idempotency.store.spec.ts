import { idempotencyStoreContract } from '../../test/support/idempotency-store.contract';
import { MemoryIdempotencyStore } from './memory-idempotency.store';

describe(MemoryIdempotencyStore.name, () => {
  idempotencyStoreContract((now) => Promise.resolve(new MemoryIdempotencyStore(3600, now)));
});
