import type { Result } from 'ioredis';
import type { RedisClient } from '../redis/redis.connection';
import { luaScript } from '../redis/lua';
import type { BudgetPace, BudgetStore } from './budget.store';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    mailbridgeBudget(key: string, ...args: string[]): Result<number, Context>;
  }
}

/** The budget the replicas share: one key per endpoint and vendor key, in the shared Redis. */
export class RedisBudgetStore implements BudgetStore {
  constructor(private readonly redis: RedisClient) {
    // budget.lua, loaded once, then called by its SHA (EVALSHA).
    redis.defineCommand('mailbridgeBudget', {
      numberOfKeys: 1,
      lua: luaScript(__dirname, 'budget'),
    });
  }

  take(key: string, pace: BudgetPace, now?: number): Promise<number> {
    return this.redis.mailbridgeBudget(key, 'take', ...numbers(pace, 0), stamp(now));
  }

  async shrink(key: string, pace: BudgetPace, ms: number, now?: number): Promise<boolean> {
    const moved = await this.redis.mailbridgeBudget(
      key,
      'shrink',
      ...numbers(pace, ms),
      stamp(now),
    );
    return moved === 1;
  }
}

function numbers(pace: BudgetPace, holdMs: number): string[] {
  return [pace.intervalMs, pace.toleranceMs, Math.ceil(holdMs)].map(String);
}

function stamp(now: number | undefined): string {
  return now === undefined ? '' : String(Math.floor(now));
}
