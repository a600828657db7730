import type { Redis, Result } from 'ioredis';
import type { RecordedOutcome } from '../contracts/action-outcome';
import {
  DEFAULT_CONNECTION,
  RedisConnection,
  type RedisConnectionOptions,
} from '../redis/redis.connection';
import { Coalescer } from './coalescer';
import {
  holderId,
  type ClaimHolder,
  type ClaimResult,
  type HeldClaim,
  type IdempotencyStore,
} from './idempotency.store';

/*
 * A key holds `claim|<instance>/<handling>|<expiresAt ms>|<phase>` (phase `claimed`, or
 * `sending` once a request for the action may have been written, by this holder or one before
 * it) while an action runs, and `done|<outcome JSON>` once it finished. An instance is
 * alive while `<prefix>instance:<instance>` exists; its heartbeat keeps that key a few seconds
 * ahead. The scripts read that key by a name built inside the script, so the store needs one
 * Redis (standalone or with replicas), not a cluster that shards keys.
 */
const CLAIM_SCRIPT = `
local now, ttl, retention, live = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3], ARGV[4]
local replies = {}
for i, key in ipairs(KEYS) do
  local holder = ARGV[4 + i]
  local claimed = 'claim|' .. holder .. '|' .. (now + ttl) .. '|'
  local value = redis.call('GET', key)
  local reply
  if not value then
    redis.call('SET', key, claimed .. 'claimed', 'EX', retention)
    reply = 'claimed'
  elseif string.sub(value, 1, 5) == 'done|' then
    reply = value
  else
    local _, _, owner, expires, phase = string.find(value, '^claim|(.-)|(%d+)|(%a+)$')
    if owner == holder then
      reply = 'claimed'
    else
      if owner then
        local instance = string.match(owner, '^(.*)/[^/]*$')
        if tonumber(expires) > now and redis.call('EXISTS', live .. instance) == 1 then
          reply = 'busy'
        end
      end
      if not reply then
        -- Unless the claim never reached 'sending', a request may have been written: the new
        -- claim keeps the mark, so that whoever takes it over next learns it too.
        local mark = phase == 'claimed' and 'claimed' or 'sending'
        redis.call('SET', key, claimed .. mark, 'EX', retention)
        if mark == 'claimed' then reply = 'reclaimed' else reply = 'reclaimed-maybe-sent' end
      end
    end
  end
  replies[i] = reply
end
return replies
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

/**
 * Records finished keys' outcomes, kept for ARGV[1] seconds: ARGV[1 + i] is KEYS[i]'s value, and
 * ARGV[1 + #KEYS + i] says how — `set`, or `mark` for an order's in-window mark, written unless
 * its list's outcome is recorded already (the list closed). One command for a whole batch of
 * outcomes: a MULTI of one SET each made ioredis build a command object per key.
 */
const COMPLETE_SCRIPT = `
local retention, count = ARGV[1], #KEYS
for i, key in ipairs(KEYS) do
  local current = ARGV[1 + count + i] == 'mark' and redis.call('GET', key)
  if not (current and string.sub(current, 1, 5) == 'done|') then
    redis.call('SET', key, ARGV[1 + i], 'EX', retention)
  end
end
return count
`;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    mailbridgeClaim(...keysThenArgs: string[]): Result<string[], Context>;
    mailbridgeRenew(key: string, ...args: string[]): Result<number, Context>;
    mailbridgeMarkSending(...keysThenHolders: string[]): Result<number[], Context>;
    mailbridgeRelease(key: string, holder: string): Result<number, Context>;
    /** ioredis flattens array arguments one level: a batch's lists go without spreading. */
    mailbridgeComplete(...keysThenArgs: Array<string | string[]>): Result<number, Context>;
  }
}

/** One claim waiting for its turn's script call. */
interface ClaimRequest {
  key: string;
  holder: string;
  claimTtlMs: number;
}

/**
 * Claims or outcomes per Redis command at most: a script runs alone on the server, and a few
 * hundred keys keep each one well under a millisecond.
 */
const MAX_BATCH = 500;

function claimResult(reply: string): ClaimResult {
  if (reply === 'claimed' || reply === 'busy') return { kind: reply };
  if (reply === 'reclaimed') return { kind: 'reclaimed', maybeSent: false };
  if (reply === 'reclaimed-maybe-sent') return { kind: 'reclaimed', maybeSent: true };
  return { kind: 'done', outcome: JSON.parse(reply.slice(5)) as RecordedOutcome };
}

/** The production store: shared by every replica, so a rebalance cannot cause a second send. */
export class RedisIdempotencyStore implements IdempotencyStore {
  private readonly connection: RedisConnection;
  private readonly redis: Redis;
  /** Whether `close` closes the connection: only one the store opened from a URL itself. */
  private readonly ownsConnection: boolean;
  private readonly claims = new Coalescer(
    (requests: ClaimRequest[]) => this.claimMany(requests),
    MAX_BATCH,
  );
  private readonly completions = new Coalescer(
    (calls: Array<Array<{ key: string; outcome: RecordedOutcome }>>) => this.completeMany(calls),
    MAX_BATCH,
  );

  /**
   * On the service's one connection (`REDIS_CONNECTION`), or, given a URL (tools and tests), on a
   * connection of its own that `close` closes.
   */
  constructor(
    redis: RedisConnection | string,
    private readonly ttlSeconds: number,
    private readonly prefix = 'mailbridge:idem:',
    private readonly now: () => number = Date.now,
    options: RedisConnectionOptions = DEFAULT_CONNECTION,
  ) {
    this.ownsConnection = typeof redis === 'string';
    this.connection =
      typeof redis === 'string' ? new RedisConnection(redis, prefix, now, options) : redis;
    this.redis = this.connection.client;
    // Scripts are loaded once and then called by their SHA (EVALSHA), not sent every time.
    this.redis.defineCommand('mailbridgeClaim', { lua: CLAIM_SCRIPT });
    this.redis.defineCommand('mailbridgeRenew', { numberOfKeys: 1, lua: RENEW_SCRIPT });
    this.redis.defineCommand('mailbridgeMarkSending', { lua: MARK_SENDING_SCRIPT });
    this.redis.defineCommand('mailbridgeRelease', { numberOfKeys: 1, lua: RELEASE_SCRIPT });
    this.redis.defineCommand('mailbridgeComplete', { lua: COMPLETE_SCRIPT });
  }

  /** Resolves once connected (see `RedisConnection.connect`). */
  connect(): Promise<void> {
    return this.connection.connect();
  }

  /** The connection's client, for tests and tools that share it. */
  get client(): Redis {
    return this.redis;
  }

  /** Whether Redis answers: while it does not, claims wait and nothing is sent. */
  get connected(): boolean {
    return this.connection.connected;
  }

  /** Why Redis counts as unreachable now (credentials removed); undefined while it answers. */
  get connectionProblem(): string | undefined {
    return this.connection.connectionProblem;
  }

  async heartbeat(instance: string, ttlMs: number): Promise<void> {
    await this.redis.set(this.liveKey(instance), '1', 'PX', ttlMs);
  }

  async retire(instance: string): Promise<void> {
    await this.redis.del(this.liveKey(instance));
  }

  claim(key: string, holder: ClaimHolder, claimTtlMs: number): Promise<ClaimResult> {
    return this.claims.call({ key: this.prefix + key, holder: holderId(holder), claimTtlMs });
  }

  /** One script call for the claims of a turn: a fetched batch's actions claim together. */
  private async claimMany(requests: ClaimRequest[]): Promise<ClaimResult[]> {
    // Claims made together share a TTL in practice (one setting); a differing one goes alone.
    const ttl = requests[0].claimTtlMs;
    const same = requests.filter((r) => r.claimTtlMs === ttl);
    if (same.length < requests.length) {
      return Promise.all(requests.map((r) => this.claimMany([r]).then(([result]) => result)));
    }
    const replies = await this.redis.mailbridgeClaim(
      String(requests.length),
      ...requests.map((r) => r.key),
      String(this.now()),
      String(ttl),
      String(this.ttlSeconds),
      this.liveKey(''),
      ...requests.map((r) => r.holder),
    );
    return replies.map(claimResult);
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

  complete(outcomes: Array<{ key: string; outcome: RecordedOutcome }>): Promise<void> {
    if (outcomes.length === 0) return Promise.resolve();
    return this.completions.call(outcomes);
  }

  /** One script call for the outcomes recorded in a turn, run on the server as one. */
  private async completeMany(
    calls: Array<Array<{ key: string; outcome: RecordedOutcome }>>,
  ): Promise<void[]> {
    const outcomes = calls.flat();
    // A closing window's orders come as one call, so a batch may hold thousands of outcomes.
    await this.redis.mailbridgeComplete(
      String(outcomes.length),
      outcomes.map(({ key }) => this.prefix + key),
      String(this.ttlSeconds),
      outcomes.map(({ outcome }) => `done|${JSON.stringify(outcome)}`),
      outcomes.map(({ outcome }) => (outcome.status === 'in-window' ? 'mark' : 'set')),
    );
    return calls.map(() => undefined);
  }

  async release(key: string, holder: ClaimHolder): Promise<void> {
    await this.redis.mailbridgeRelease(this.prefix + key, holderId(holder));
  }

  /** The connection is closed by whoever opened it: `RedisModule`, or this store for a URL. */
  async close(): Promise<void> {
    if (this.ownsConnection) await this.connection.close();
  }

  private liveKey(instance: string): string {
    return `${this.prefix}instance:${instance}`;
  }
}
