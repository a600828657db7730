import { holdBack, takeToken, type BudgetPace, type BudgetStore } from './budget.store';

/** The budget of one process (IDEMPOTENCY_STORE=memory): the same rules, kept in a map. */
export class MemoryBudgetStore implements BudgetStore {
  private readonly tats = new Map<string, number>();

  constructor(private readonly clock: () => number = Date.now) {}

  take(key: string, pace: BudgetPace, now = this.clock()): Promise<number> {
    const result = takeToken(this.tats.get(key), now, pace);
    if (!result.granted) return Promise.resolve(result.waitMs);
    this.tats.set(key, result.tat);
    return Promise.resolve(0);
  }

  shrink(key: string, pace: BudgetPace, ms: number, now = this.clock()): Promise<boolean> {
    const held = holdBack(this.tats.get(key), now, pace, ms);
    if (held !== undefined) this.tats.set(key, held);
    return Promise.resolve(held !== undefined);
  }
}
