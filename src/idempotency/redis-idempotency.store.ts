import { Logger } from '@nestjs/common';
import { Redis, type Result } from 'ioredis';
import type { ActionOutcome } from '../contracts/action-outcome';
import {
  holderId,
  type ClaimHolder,
  type ClaimResult,
  type HeldClaim,
  type IdempotencyStore,
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

/** How the store watches its one connection; shortened by tests. */
export interface RedisConnectionOptions {
  /** How often a PING goes out while the connection is up. */
  pingIntervalMs: number;
  /** A PING unanswered for this long makes the store count as unreachable (a hung Redis). */
  pingTimeoutMs: number;
}

const DEFAULT_CONNECTION: RedisConnectionOptions = { pingIntervalMs: 1_000, pingTimeoutMs: 3_000 };

/** The production store: shared by every replica, so a rebalance cannot cause a second send. */
export class RedisIdempotencyStore implements IdempotencyStore {
  private readonly logger = new Logger(RedisIdempotencyStore.name);
  private readonly redis: Redis;
  private readonly secrets: string[];
  private reachable = true;
  private lastError?: string;
  private pingSentAt?: number;
  private readonly pingTimer: NodeJS.Timeout;

  constructor(
    url: string,
    private readonly ttlSeconds: number,
    private readonly prefix = 'mailbridge:idem:',
    private readonly now: () => number = Date.now,
    private readonly connection: RedisConnectionOptions = DEFAULT_CONNECTION,
  ) {
    this.secrets = secretsOf(url);
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
    // Without a listener ioredis prints every reconnection failure as an unhandled error event.
    this.redis.on('error', (error: Error) => {
      this.lastError = this.redact(error.message);
      this.lost(this.lastError);
    });
    this.redis.on('ready', () => this.regained());
    // A Redis that hangs (paused, or its host gone without closing the connection) raises no
    // error: the connection stays up and commands wait. Only an unanswered PING tells.
    this.pingTimer = setInterval(() => this.ping(), connection.pingIntervalMs);
    this.pingTimer.unref();
  }

  /**
   * Resolves once connected; rejects if the first attempt fails, while the client goes on
   * trying in the background (commands wait for it).
   */
  async connect(): Promise<void> {
    if (this.redis.status === 'wait') await this.redis.connect();
  }

  /** Whether Redis answers: while it does not, claims wait and nothing is sent. */
  get connected(): boolean {
    return this.connectionProblem === undefined;
  }

  /** Why Redis counts as unreachable now (credentials removed); undefined while it answers. */
  get connectionProblem(): string | undefined {
    const status = this.redis.status;
    if (status !== 'ready') return `${this.lastError ?? 'not connected'} (connection ${status})`;
    const waited = this.pingSentAt === undefined ? 0 : this.now() - this.pingSentAt;
    if (waited >= this.connection.pingTimeoutMs) return `no answer to PING for ${waited} ms`;
    return undefined;
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
    return { kind: 'done', outcome: JSON.parse(reply.slice(5)) as ActionOutcome };
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

  async complete(outcomes: Array<{ key: string; outcome: ActionOutcome }>): Promise<void> {
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
    clearInterval(this.pingTimer);
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  private ping(): void {
    if (this.pingSentAt !== undefined) {
      const problem = this.connectionProblem;
      if (problem !== undefined && this.redis.status === 'ready') this.lost(problem);
      return;
    }
    if (this.redis.status !== 'ready') return; // reconnecting: the error listener has said so
    this.pingSentAt = this.now();
    this.redis.ping().then(
      () => {
        this.pingSentAt = undefined;
        this.regained();
      },
      () => (this.pingSentAt = undefined), // a lost connection, which its error event reports
    );
  }

  /** Said once per outage, not once per reconnection attempt or unanswered PING. */
  private lost(problem: string): void {
    if (!this.reachable) return;
    this.reachable = false;
    this.logger.error(`Redis unreachable, sends wait until it is back: ${problem}`);
  }

  private regained(): void {
    if (this.reachable || !this.connected) return;
    this.reachable = true;
    this.lastError = undefined;
    this.logger.log('Redis reachable again');
  }

  /** A Redis URL may carry a password, and an error message may repeat the URL. */
  private redact(message: string): string {
    return this.secrets.reduce((text, secret) => text.split(secret).join('[redacted]'), message);
  }

  private liveKey(instance: string): string {
    return `${this.prefix}instance:${instance}`;
  }
}

/** The password of a Redis URL, as written and decoded; none for a URL without one. */
function secretsOf(url: string): string[] {
  try {
    const password = new URL(url).password;
    if (!password) return [];
    return [...new Set([password, decodeURIComponent(password)])];
  } catch {
    return [];
  }
}
