import type { Result } from 'ioredis';
import type { RecordedOutcome } from '../contracts/action-outcome';
import {
  DEFAULT_CONNECTION,
  RedisConnection,
  type RedisClient,
  type RedisConnectionOptions,
} from '../redis/redis.connection';
import { defineCountedScript, luaScript } from '../redis/lua';
import { perSlot } from '../redis/slots';
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
 * ahead. The scripts (the .lua files beside this one) touch only the keys they get as `KEYS`,
 * and a batch goes as one call (one per hash slot on a sharded Redis). A claim held by another
 * instance is taken over once that instance's key is gone: the store asks for it between two
 * claim calls, since it lies in another hash slot than the claim.
 */

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
  /** A holder of this process that gave the key up without an outcome: taken over at once. */
  abandoned: string;
}

/**
 * Claims or outcomes per Redis command at most: a script runs alone on the server, so every other
 * client waits while it runs; a bounded batch keeps that wait short and still shares one round
 * trip among many keys.
 */
const MAX_BATCH = 500;

/** The instance named by a `held|<instance>` reply of claim.lua. */
function heldBy(reply: string): string | undefined {
  return reply.startsWith('held|') ? reply.slice(5) : undefined;
}

function claimResult(reply: string): ClaimResult {
  if (reply === 'claimed') return { kind: reply };
  // Held by a live instance, or changed hands again since it was asked about: asked again later.
  if (reply.startsWith('held|')) return { kind: 'busy' };
  if (reply === 'reclaimed') return { kind: 'reclaimed', maybeSent: false };
  if (reply === 'reclaimed-maybe-sent') return { kind: 'reclaimed', maybeSent: true };
  return { kind: 'done', outcome: JSON.parse(reply.slice(5)) as RecordedOutcome };
}

/** The production store: shared by every replica, so a rebalance cannot cause a second send. */
export class RedisIdempotencyStore implements IdempotencyStore {
  private readonly connection: RedisConnection;
  private readonly redis: RedisClient;
  /** Whether `close` closes the connection: only one the store opened from a URL itself. */
  private readonly ownsConnection: boolean;
  /** Whether batches split by hash slot: only a Redis Cluster needs it (`perSlot`). */
  private readonly slots: { sharded: boolean };
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
    this.slots = { sharded: this.redis.isCluster };
    // Scripts are loaded once and then called by their SHA (EVALSHA), not sent every time.
    // The Lua is in the .lua files beside this one.
    defineCountedScript(this.redis, 'mailbridgeClaim', luaScript(__dirname, 'claim'));
    this.redis.defineCommand('mailbridgeRenew', {
      numberOfKeys: 1,
      lua: luaScript(__dirname, 'renew'),
    });
    defineCountedScript(this.redis, 'mailbridgeMarkSending', luaScript(__dirname, 'mark-sending'));
    this.redis.defineCommand('mailbridgeRelease', {
      numberOfKeys: 1,
      lua: luaScript(__dirname, 'release'),
    });
    defineCountedScript(this.redis, 'mailbridgeComplete', luaScript(__dirname, 'complete'));
  }

  /** Resolves once connected (see `RedisConnection.connect`). */
  connect(): Promise<void> {
    return this.connection.connect();
  }

  /** The connection's client, for tests and tools that share it. */
  get client(): RedisClient {
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

  claim(
    key: string,
    holder: ClaimHolder,
    claimTtlMs: number,
    abandoned?: ClaimHolder,
  ): Promise<ClaimResult> {
    return this.claims.call({
      key: this.prefix + key,
      holder: holderId(holder),
      claimTtlMs,
      abandoned: abandoned ? holderId(abandoned) : '',
    });
  }

  /** One script call for the claims of a turn: a fetched batch's actions claim together. */
  private async claimMany(requests: ClaimRequest[]): Promise<ClaimResult[]> {
    // Claims made together share a TTL in practice (one setting); a differing one goes alone.
    const ttl = requests[0].claimTtlMs;
    const same = requests.filter((r) => r.claimTtlMs === ttl);
    if (same.length < requests.length) {
      return Promise.all(requests.map((r) => this.claimMany([r]).then(([result]) => result)));
    }
    const now = String(this.now());
    const replies = await this.claimScript(
      requests,
      now,
      ttl,
      requests.map((r) => r.abandoned),
    );
    // A claim another instance holds is that instance's while it is alive: its heartbeat key
    // is asked here, in one round trip, and the claims of the ones that stopped are taken over.
    const held = [...new Set(replies.map(heldBy).filter((i) => i !== undefined))];
    if (held.length === 0) return replies.map(claimResult);
    const alive = await Promise.all(held.map((i) => this.redis.exists(this.liveKey(i))));
    const stopped = new Set(held.filter((_, n) => alive[n] === 0));
    const again = replies.flatMap((reply, index) => {
      const instance = heldBy(reply);
      return instance !== undefined && stopped.has(instance) ? [{ index, instance }] : [];
    });
    if (again.length > 0) {
      const retaken = await this.claimScript(
        again.map((a) => requests[a.index]),
        now,
        ttl,
        again.map((a) => a.instance),
      );
      again.forEach((a, n) => (replies[a.index] = retaken[n]));
    }
    return replies.map(claimResult);
  }

  /**
   * claim.lua on a batch: one call, or on a sharded Redis one per hash slot (`perSlot`), sent
   * together. `stopped[i]` names an instance found not alive whose claim request i may take over.
   */
  private claimScript(
    requests: ClaimRequest[],
    now: string,
    ttl: number,
    stopped: string[],
  ): Promise<string[]> {
    const indexed = requests.map((request, i) => ({ request, stopped: stopped[i] ?? '' }));
    return perSlot(
      indexed,
      (r) => r.request.key,
      (group) =>
        this.redis.mailbridgeClaim(
          String(group.length),
          ...group.map((r) => r.request.key),
          now,
          String(ttl),
          String(this.ttlSeconds),
          ...group.map((r) => r.request.holder),
          ...group.map((r) => r.stopped),
        ),
      this.slots,
    );
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
    const held = await perSlot(
      claims,
      (c) => this.prefix + c.key,
      (group) =>
        this.redis.mailbridgeMarkSending(
          String(group.length),
          ...group.map((c) => this.prefix + c.key),
          ...group.map((c) => holderId(c.holder)),
        ),
      this.slots,
    );
    // Not written to the vendor until a replica has the marks too: after a failover the next
    // owner must learn the send may have happened.
    await this.connection.replicated();
    return new Set(claims.filter((_, i) => held[i] === 1).map((c) => c.key));
  }

  complete(outcomes: Array<{ key: string; outcome: RecordedOutcome }>): Promise<void> {
    if (outcomes.length === 0) return Promise.resolve();
    return this.completions.call(outcomes);
  }

  /** One script call (per hash slot, on a sharded Redis) for the outcomes of a turn. */
  private async completeMany(
    calls: Array<Array<{ key: string; outcome: RecordedOutcome }>>,
  ): Promise<void[]> {
    const outcomes = calls.flat();
    // A closing window's orders come as one call, so a batch may hold thousands of outcomes.
    await perSlot(
      outcomes,
      ({ key }) => this.prefix + key,
      async (group) => {
        await this.redis.mailbridgeComplete(
          String(group.length),
          group.map(({ key }) => this.prefix + key),
          String(this.ttlSeconds),
          group.map(({ outcome }) => `done|${JSON.stringify(outcome)}`),
          group.map(({ outcome }) => (outcome.status === 'in-window' ? 'mark' : 'set')),
        );
        return group.map(() => undefined);
      },
      this.slots,
    );
    // Not answered (result published, offset committed) until a replica has the outcomes.
    await this.connection.replicated();
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
