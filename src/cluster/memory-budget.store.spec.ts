import { budgetStoreContract } from '../../test/support/budget-store.contract';
import { MemoryBudgetStore } from './memory-budget.store';

describe(MemoryBudgetStore.name, () => {
  budgetStoreContract(() => Promise.resolve(new MemoryBudgetStore()));
});
