import { Logger } from '@nestjs/common';
import { Redis, type Result } from 'ioredis';
import {
  holderId,
  type ClaimHolder,
  type ClaimResult,
  type HeldClaim,
  type IdempotencyStore,
  type StoredOutcome,
} from './idempotency.store';

/*
 * A key holds `claim|<instance>/<handling>|<expiresAt ms>|<phase>` (phase `claimed` or
 * `sending`) while an action runs, and `done|<outcome JSON>` once it finished. An instance is
 * alive while `<prefix>instance:<instance>` exists; its heartbeat keeps that key a few seconds
 * ahead. The scripts read that key by a name built inside the script, so the store needs one
 * Redis (standalone or with replicas), not a cluster that shards keys.
 */
const CLAIM_SCRIPT = `
local value = redis.call('GET', KEYS[1])
local holder, now, ttl = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local retention, live = ARGV[4], ARGV[5]
local fresh = 'claim|' .. holder .. '|' .. (now + ttl) .. '|claimed'
if not value then
  redis.call('SET', KEYS[1], fresh, 'EX', retention)
  return 'claimed'
end
if string.sub(value, 1, 5) == 'done|' then
  return value
end
local _, _, owner, expires, phase = string.find(value, '^claim|(.-)|(%d+)|(%a+)$')
if owner == holder then
  return 'claimed'
end
if owner then
  local instance = string.match(owner, '^(.*)/[^/]*$')
  if tonumber(expires) > now and redis.call('EXISTS', live .. instance) == 1 then
    return 'busy'
  end
end
redis.call('SET', KEYS[1], fresh, 'EX', retention)
if phase == 'claimed' then
  return 'reclaimed'
end
return 'reclaimed-maybe-sent'
`;

const RENEW_SCRIPT = `
local value = redis.call('GET', KEYS[1])
if not value then return 0 end
local _, _, owner, phase = string.find(value, '^claim|(.-)|%d+|(%a+)$')
if owner ~= ARGV[1] then return 0 end
local expires = tonumber(ARGV[2]) + tonumber(ARGV[3])
redis.call('SET', KEYS[1], 'claim|' .. owner .. '|' .. expires .. '|' .. phase, 'EX', ARGV[4])
return 1
`;

/** One reply per key, 1 when it was still the given holder's and is now marked `sending`. */
const MARK_SENDING_SCRIPT = `
local held = {}
for i, key in ipairs(KEYS) do
  held[i] = 0
  local value = redis.call('GET', key)
  if value then
    local _, _, owner, expires = string.find(value, '^claim|(.-)|(%d+)|%a+$')
    if owner == ARGV[i] then
      redis.call('SET', key, 'claim|' .. owner .. '|' .. expires .. '|sending', 'KEEPTTL')
      held[i] = 1
    end
  end
end
return held
`;

/**
 * A claim that never reached `sending` is deleted; one that did keeps its mark and expires at
 * once, so that the next claimer knows the request may have been written.
 */
const RELEASE_SCRIPT = `
local value = redis.call('GET', KEYS[1])
if not value or string.find(value, 'claim|' .. ARGV[1] .. '|', 1, true) ~= 1 then
  return 0
end
if string.sub(value, -8) == '|sending' then
  redis.call('SET', KEYS[1], 'claim|' .. ARGV[1] .. '|0|sending', 'KEEPTTL')
else
  redis.call('DEL', KEYS[1])
end
return 1
`;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    mailbridgeClaim(key: string, ...args: string[]): Result<string, Context>;
    mailbridgeRenew(key: string, ...args: string[]): Result<number, Context>;
    mailbridgeMarkSending(...keysThenHolders: string[]): Result<number[], Context>;
    mailbridgeRelease(key: string, holder: string): Result<number, Context>;
  }
}

/** The production store: shared by every replica, so a rebalance cannot cause a second send. */
export class RedisIdempotencyStore implements IdempotencyStore {
  private readonly logger = new Logger(RedisIdempotencyStore.name);
  private readonly redis: Redis;
  private reachable = true;

  constructor(
    url: string,
    private readonly ttlSeconds: number,
    private readonly prefix = 'mailbridge:idem:',
    private readonly now: () => number = Date.now,
  ) {
    // Auto-pipelining sends the claims of a whole batch in one round trip. Commands wait while
    // Redis is unreachable (no retry limit): nothing is sent to the vendor without a claim.
    this.redis = new Redis(url, {
      enableAutoPipelining: true,
      maxRetriesPerRequest: null,
      lazyConnect: true,
    });
    // Scripts are loaded once and then called by their SHA (EVALSHA), not sent every time.
    this.redis.defineCommand('mailbridgeClaim', { numberOfKeys: 1, lua: CLAIM_SCRIPT });
    this.redis.defineCommand('mailbridgeRenew', { numberOfKeys: 1, lua: RENEW_SCRIPT });
    this.redis.defineCommand('mailbridgeMarkSending', { lua: MARK_SENDING_SCRIPT });
    this.redis.defineCommand('mailbridgeRelease', { numberOfKeys: 1, lua: RELEASE_SCRIPT });
    // Said once per outage, not once per reconnection attempt.
    this.redis.on('error', (error: Error) => {
      if (!this.reachable) return;
      this.reachable = false;
      this.logger.error(`Redis unreachable, sends wait until it is back: ${error.message}`);
    });
    this.redis.on('ready', () => {
      if (this.reachable) return;
      this.reachable = true;
      this.logger.log('Redis reachable again');
    });
  }

  /**
   * Resolves once connected; rejects if the first attempt fails, while the client goes on
   * trying in the background (commands wait for it).
   */
  async connect(): Promise<void> {
    if (this.redis.status === 'wait') await this.redis.connect();
  }

  /** Whether the connection is up: while it is not, claims wait and nothing is sent. */
  get connected(): boolean {
    return this.redis.status === 'ready';
  }

  async heartbeat(instance: string, ttlMs: number): Promise<void> {
    await this.redis.set(this.liveKey(instance), '1', 'PX', ttlMs);
  }

  async retire(instance: string): Promise<void> {
    await this.redis.del(this.liveKey(instance));
  }

  async claim(key: string, holder: ClaimHolder, claimTtlMs: number): Promise<ClaimResult> {
    const reply = await this.redis.mailbridgeClaim(
      this.prefix + key,
      holderId(holder),
      String(this.now()),
      String(claimTtlMs),
      String(this.ttlSeconds),
      this.liveKey(''),
    );
    if (reply === 'claimed' || reply === 'busy') return { kind: reply };
    if (reply === 'reclaimed') return { kind: 'reclaimed', maybeSent: false };
    if (reply === 'reclaimed-maybe-sent') return { kind: 'reclaimed', maybeSent: true };
    return { kind: 'done', outcome: JSON.parse(reply.slice(5)) as StoredOutcome };
  }

  async renew(key: string, holder: ClaimHolder, claimTtlMs: number): Promise<boolean> {
    const renewed = await this.redis.mailbridgeRenew(
      this.prefix + key,
      holderId(holder),
      String(this.now()),
      String(claimTtlMs),
      String(this.ttlSeconds),
    );
    return renewed === 1;
  }

  async markSending(claims: HeldClaim[]): Promise<Set<string>> {
    if (claims.length === 0) return new Set();
    const keys = claims.map((c) => this.prefix + c.key);
    const holders = claims.map((c) => holderId(c.holder));
    const held = await this.redis.mailbridgeMarkSending(String(claims.length), ...keys, ...holders);
    return new Set(claims.filter((_, i) => held[i] === 1).map((c) => c.key));
  }

  async complete(outcomes: Array<{ key: string; outcome: StoredOutcome }>): Promise<void> {
    if (outcomes.length === 0) return;
    const transaction = this.redis.multi();
    for (const { key, outcome } of outcomes) {
      transaction.set(this.prefix + key, `done|${JSON.stringify(outcome)}`, 'EX', this.ttlSeconds);
    }
    const replies = await transaction.exec();
    const failed = replies?.find(([error]) => error !== null)?.[0];
    if (!replies || failed) throw failed ?? new Error('idempotency store: transaction aborted');
  }

  async release(key: string, holder: ClaimHolder): Promise<void> {
    await this.redis.mailbridgeRelease(this.prefix + key, holderId(holder));
  }

  async nextSequence(name: string): Promise<number> {
    const key = `${this.prefix}seq:${name}`;
    const replies = await this.redis.multi().incr(key).expire(key, this.ttlSeconds).exec();
    const next = Number(replies?.[0]?.[1]);
    if (!Number.isSafeInteger(next)) throw new Error('idempotency store: sequence not advanced');
    return next;
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  private liveKey(instance: string): string {
    return `${this.prefix}instance:${instance}`;
  }
}
