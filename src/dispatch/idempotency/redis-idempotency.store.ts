import { Redis } from 'ioredis';
import type { ClaimResult, IdempotencyStore, StoredOutcome } from './idempotency.store';

/**
 * Claim in one atomic step: a missing key is claimed; a finished one answers with its outcome;
 * the owner renews its own claim; an expired claim of another owner is taken over (and said
 * so, because the vendor may have received that send); a live one is busy. Claims carry their
 * expiry in the value so that an abandoned one is recognised instead of silently vanishing.
 */
const CLAIM_SCRIPT = `
local value = redis.call('GET', KEYS[1])
local owner, now, ttl, retention = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local claim = 'claim|' .. owner .. '|' .. (now + ttl)
if not value then
  redis.call('SET', KEYS[1], claim, 'EX', retention)
  return 'claimed'
end
if string.sub(value, 1, 5) == 'done|' then
  return value
end
local _, _, holder, expires = string.find(value, '^claim|(.*)|(%d+)$')
if holder == owner then
  redis.call('SET', KEYS[1], claim, 'EX', retention)
  return 'claimed'
end
if expires and tonumber(expires) <= now then
  redis.call('SET', KEYS[1], claim, 'EX', retention)
  return 'reclaimed'
end
return 'busy'
`;

const RELEASE_SCRIPT = `
local value = redis.call('GET', KEYS[1])
if value and string.find(value, 'claim|' .. ARGV[1] .. '|', 1, true) == 1 then
  redis.call('DEL', KEYS[1])
end
return 1
`;

/** The production store: shared by every replica, so a rebalance cannot cause a second send. */
export class RedisIdempotencyStore implements IdempotencyStore {
  private readonly redis: Redis;

  constructor(
    url: string,
    private readonly ttlSeconds: number,
    private readonly prefix = 'mailbridge:idem:',
    private readonly now: () => number = Date.now,
  ) {
    // Auto-pipelining sends the claims of a whole batch in one round trip.
    this.redis = new Redis(url, {
      enableAutoPipelining: true,
      maxRetriesPerRequest: null,
      lazyConnect: true,
    });
  }

  async connect(): Promise<void> {
    if (this.redis.status === 'wait') await this.redis.connect();
  }

  async claim(key: string, owner: string, claimTtlMs: number): Promise<ClaimResult> {
    const reply = (await this.redis.eval(
      CLAIM_SCRIPT,
      1,
      this.prefix + key,
      owner,
      String(this.now()),
      String(claimTtlMs),
      String(this.ttlSeconds),
    )) as string;
    if (reply === 'claimed' || reply === 'reclaimed' || reply === 'busy') return { kind: reply };
    return { kind: 'done', outcome: JSON.parse(reply.slice(5)) as StoredOutcome };
  }

  async complete(key: string, outcome: StoredOutcome): Promise<void> {
    await this.redis.set(
      this.prefix + key,
      `done|${JSON.stringify(outcome)}`,
      'EX',
      this.ttlSeconds,
    );
  }

  async release(key: string, owner: string): Promise<void> {
    await this.redis.eval(RELEASE_SCRIPT, 1, this.prefix + key, owner);
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
