import { normalisedAddress } from '../email-api/vendor-request.validator';
import type { Result } from 'ioredis';
import type { RedisClient } from '../redis/redis.connection';
import type { ContactMember } from '../email-api/vendor.types';
import { Coalescer } from '../idempotency/coalescer';
import { defineCountedScript, luaScript } from '../redis/lua';
import type {
  Placement,
  TakenList,
  WindowEntry,
  WindowOrder,
  WindowStore,
  WindowStoreOptions,
} from './window.store';

/*
 * Keys, under the base B (`<prefix>win:`):
 *   B due            sorted set: list name → when it is due (open) or its lease ends (held)
 *   B open           hash: `lists` and `members` not yet published (for the metrics)
 *   B w:<window>     hash: `current` list, `parts` (continuations), `lates` (follow-ups)
 *   B o:<window>     hash: order reference → the list it went to (one order, one member)
 *   B l:<list>       hash: state, due, owner, lease, listId, ambiguous
 *   B m:<list>       hash: normalised address → member JSON (the latest details win); deleted
 *                    when the list's results are published, and an erased address's member
 *                    leaves every list not yet published (`forget`)
 *   B r:<list>       hash: order reference → what publishing its result needs (JSON)
 * Every key of a list expires the retention after the list is due (so a day-long window's keys
 * outlive the day), and the retention after its results are published.
 * Scripts get their keys as `KEYS`, except the lists that the add and take scripts find by name
 * (in a window's `current`, or in the due set). On a sharded Redis the base is `{<prefix>win}:`,
 * a hash tag, so that every window key shares one slot: taking the first due list and placing
 * an order are then each one atomic script, and windows are a few writes per order, well within
 * one shard. On one Redis the names stay those of earlier releases, which a rolling deploy shares.
 */

/** Orders per add script call: 8 arguments each, and Redis waits while one call runs. */
const MAX_ADDS_PER_CALL = 500;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    mailbridgeWindowAdd(...args: string[]): Result<Array<[Placement['status'], string]>, Context>;
    mailbridgeWindowTake(
      ...args: string[]
    ): Result<[string, string, string, string, string[], string[]] | null, Context>;
    mailbridgeWindowRenew(...args: string[]): Result<number, Context>;
    mailbridgeWindowMarkSending(...args: string[]): Result<number, Context>;
    mailbridgeWindowCreated(...args: string[]): Result<number, Context>;
    mailbridgeWindowPublished(...args: string[]): Result<number, Context>;
    mailbridgeWindowGiveBack(...args: string[]): Result<number, Context>;
    mailbridgeWindowForget(...args: string[]): Result<number, Context>;
  }
}

/**
 * The window store replicas share: one Lua script per step, so that two replicas adding,
 * taking or finishing the same list never race. It uses the shared connection (`REDIS_CONNECTION`).
 */
export class RedisWindowStore implements WindowStore {
  /** The orders of one turn (a fetched batch's) go to Redis as one script call. */
  private readonly adds = new Coalescer(
    (entries: WindowEntry[]) => this.addMany(entries),
    MAX_ADDS_PER_CALL,
  );

  /** The start of every window key's name (see the top of this file). */
  private readonly base: string;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
    private readonly options: WindowStoreOptions,
    private readonly now: () => number = Date.now,
    /**
     * Resolves once Redis replicas hold the writes so far (`RedisConnection.replicated`): an order's
     * member, a list's `sending` mark and its id must survive a failover as a claim does.
     */
    private readonly replicated: () => Promise<void> = () => Promise.resolve(),
  ) {
    this.base = redis.isCluster ? `{${prefix}win}:` : `${prefix}win:`;
    // Each script is window-common.lua's head, then its own file (beside this one).
    const scripts: Record<string, string> = {
      mailbridgeWindowAdd: 'window-add',
      mailbridgeWindowTake: 'window-take',
      mailbridgeWindowRenew: 'window-renew',
      mailbridgeWindowMarkSending: 'window-mark-sending',
      mailbridgeWindowCreated: 'window-created',
      mailbridgeWindowPublished: 'window-published',
      mailbridgeWindowGiveBack: 'window-give-back',
      mailbridgeWindowForget: 'window-forget',
    };
    // Loaded once and then called by SHA (EVALSHA), like the idempotency store's scripts.
    for (const [name, file] of Object.entries(scripts)) {
      // The number of keys is each call's first argument: the add script's varies.
      defineCountedScript(redis, name, luaScript(__dirname, 'window-common', file));
    }
  }

  add(entry: WindowEntry): Promise<Placement> {
    return this.adds.call(entry);
  }

  /** The orders of one turn, placed by one script call in the order they came. */
  private async addMany(entries: WindowEntry[]): Promise<Placement[]> {
    const { lingerMs, maxMembers, latePolicy, retentionSeconds } = this.options;
    const windows = [...new Set(entries.flatMap((e) => [e.window.name, e.present.name]))];
    const keys = [this.key('due'), this.key('open')];
    for (const window of windows) keys.push(this.key('w:', window), this.key('o:', window));
    const args = [
      ...this.head(),
      String(lingerMs),
      String(maxMembers),
      latePolicy,
      String(retentionSeconds),
      String(windows.length),
      ...windows,
    ];
    for (const entry of entries) {
      args.push(
        entry.window.name,
        String(entry.window.end),
        entry.present.name,
        String(entry.present.end),
        entry.order.ref,
        JSON.stringify(entry.order),
        entry.address,
        JSON.stringify(entry.member),
      );
    }
    const replies = await this.redis.mailbridgeWindowAdd(String(keys.length), ...keys, ...args);
    await this.replicated();
    return replies.map(([status, list]) => ({ status, list }));
  }

  async take(owner: string, leaseMs: number): Promise<TakenList | undefined> {
    const reply = await this.redis.mailbridgeWindowTake(
      '1',
      this.key('due'),
      ...this.head(),
      owner,
      String(leaseMs),
      String(this.options.retentionSeconds),
    );
    if (!reply) return undefined;
    const [name, state, listId, ambiguous, members, orders] = reply;
    return {
      name,
      maybeSent: state === 'sending',
      listId: listId === '' ? undefined : listId,
      ambiguous: ambiguous === '1',
      takenOver: state !== 'open',
      members: members.map((m) => JSON.parse(m) as ContactMember),
      orders: orders.map((o) => JSON.parse(o) as WindowOrder),
    };
  }

  async renew(name: string, owner: string, leaseMs: number): Promise<boolean> {
    return (
      (await this.redis.mailbridgeWindowRenew(
        '2',
        this.key('l:', name),
        this.key('due'),
        ...this.head(),
        name,
        owner,
        String(leaseMs),
      )) === 1
    );
  }

  async markSending(name: string, owner: string): Promise<boolean> {
    const reply = await this.redis.mailbridgeWindowMarkSending(
      '1',
      this.key('l:', name),
      ...this.head(),
      owner,
    );
    await this.replicated();
    return reply === 1;
  }

  async created(name: string, owner: string, listId: string, ambiguous: boolean): Promise<boolean> {
    const reply = await this.redis.mailbridgeWindowCreated(
      '1',
      this.key('l:', name),
      ...this.head(),
      owner,
      listId,
      ambiguous ? '1' : '0',
    );
    await this.replicated();
    return reply === 1;
  }

  async published(name: string, owner: string): Promise<boolean> {
    const reply = await this.redis.mailbridgeWindowPublished(
      '5',
      this.key('l:', name),
      this.key('m:', name),
      this.key('r:', name),
      this.key('due'),
      this.key('open'),
      ...this.head(),
      name,
      owner,
      String(this.options.retentionSeconds),
    );
    return reply === 1;
  }

  async giveBack(name: string, owner: string, dueAt: number): Promise<void> {
    await this.redis.mailbridgeWindowGiveBack(
      '2',
      this.key('l:', name),
      this.key('due'),
      ...this.head(),
      name,
      owner,
      String(dueAt),
    );
  }

  async forget(address: string): Promise<number> {
    const lists = await this.redis.mailbridgeWindowForget(
      '2',
      this.key('due'),
      this.key('open'),
      ...this.head(),
      normalisedAddress(address),
    );
    await this.replicated();
    return lists;
  }

  async nextDue(): Promise<number | undefined> {
    const [, score] = await this.redis.zrange(this.key('due'), '0', '0', 'WITHSCORES');
    return score === undefined ? undefined : Number(score);
  }

  async openCounts(): Promise<{ lists: number; members: number }> {
    const [lists, members] = await this.redis.hmget(this.key('open'), 'lists', 'members');
    return { lists: Math.max(0, Number(lists ?? 0)), members: Math.max(0, Number(members ?? 0)) };
  }

  /** The connection is `RedisModule`'s: it closes it. */
  close(): Promise<void> {
    return Promise.resolve();
  }

  private head(): [string, string] {
    return [this.base, String(this.now())];
  }

  private key(kind: string, name = ''): string {
    return this.base + kind + name;
  }
}
