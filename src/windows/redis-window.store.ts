import type { Redis, Result } from 'ioredis';
import type { ContactMember } from '../email-api/vendor.types';
import { Coalescer } from '../idempotency/coalescer';
import type {
  Placement,
  TakenList,
  WindowEntry,
  WindowOrder,
  WindowStore,
  WindowStoreOptions,
} from './window.store';

/*
 * Keys, under the shared prefix P:
 *   P win:due            sorted set: list name → when it is due (open) or its lease ends (held)
 *   P win:open           hash: `lists` and `members` not yet published (for the metrics)
 *   P win:w:<window>     hash: `current` list, `parts` (continuations), `lates` (follow-ups)
 *   P win:o:<window>     hash: order reference → the list it went to (one order, one member)
 *   P win:l:<list>       hash: state, due, owner, lease, listId, ambiguous
 *   P win:m:<list>       hash: normalised address → member JSON (the latest details win)
 *   P win:r:<list>       hash: order reference → what publishing its result needs (JSON)
 * Every key of a list expires the retention after the list is due (so a day-long window's keys
 * outlive the day), and the retention after its results are published. Scripts build key names
 * inside, as the idempotency store's do: one Redis (standalone or replicated), not a cluster.
 */
const COMMON = `
local P, now = ARGV[1], tonumber(ARGV[2])
-- Expiries this call has made sure of: a turn's orders mostly share their list and window, and
-- asking Redis again for each of them was a third of the add script's commands. Nothing in a
-- script shortens an expiry, and keys are kept once written, so a kept key stays kept.
local kept = {}
local function keep(key, fromMs, retention)
  local at = fromMs + retention * 1000
  if kept[key] and kept[key] >= at then return end
  local ttl = redis.call('PTTL', key)
  if ttl < 0 or now + ttl < at then redis.call('PEXPIREAT', key, at) end
  kept[key] = math.max(at, now + ttl)
end
local function held(name, owner)
  local l = P .. 'win:l:' .. name
  local state, holder = unpack(redis.call('HMGET', l, 'state', 'owner'))
  if holder ~= owner then return nil end
  if state == 'taken' or state == 'sending' or state == 'created' then return state end
  return nil
end
`;

/*
 * Adds the orders of one turn (`Coalescer`), one after another, exactly as separate calls would:
 * after the common head, each order is 8 arguments, and each gets its own {status, list}.
 */
const ADD_SCRIPT = `${COMMON}
local linger, max, policy, retention = tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5], tonumber(ARGV[6])
local due, counts = P .. 'win:due', P .. 'win:open'
-- What this call has read or written of each window and each list, with their keys' names: a
-- turn's orders mostly share one of each, and only this script changes them while it runs, so
-- each is read from Redis once per call and kept up to date here as the script writes it.
local windows = {} -- window name -> {w, o (keys), current (its list's name, false for none)}
local lists = {}   -- list name -> {name, l, m, r (keys), state, late, due, size (when read)}
local newMembers = 0

local function windowOf(name)
  local window = windows[name]
  if not window then
    window = {w = P .. 'win:w:' .. name, o = P .. 'win:o:' .. name}
    windows[name] = window
  end
  return window
end

local function newList(name)
  local list = {name = name, l = P .. 'win:l:' .. name, m = P .. 'win:m:' .. name,
    r = P .. 'win:r:' .. name}
  lists[name] = list
  return list
end

local function listOf(name)
  local list = lists[name]
  if not list then
    list = newList(name)
    local state, late, dueAt = unpack(redis.call('HMGET', list.l, 'state', 'late', 'due'))
    list.state, list.late, list.due = state, late, tonumber(dueAt)
  end
  return list
end

local function open(window, name, dueAt, late)
  local list = newList(name)
  list.state, list.late, list.due = 'open', late, dueAt
  redis.call('HSET', list.l, 'state', 'open', 'due', dueAt, 'lease', 0, 'late', late)
  redis.call('ZADD', due, dueAt, name)
  redis.call('HINCRBY', counts, 'lists', 1)
  redis.call('HSET', window.w, 'current', name)
  window.current = name
  return list
end

-- The list of the window that takes the member now, and whether it is a follow-up; nothing
-- when the window's list is taken and the late policy sends the order to the present window.
local function place(name, windowEnd, address, mayDefer)
  local window = windowOf(name)
  if window.current == nil then window.current = redis.call('HGET', window.w, 'current') end
  local current = window.current
  -- A window first heard of after its end (a backlog) gathers for a linger from then.
  if not current then return open(window, name, math.max(windowEnd, now) + linger, '0'), false end
  local list = listOf(current)
  if list.state == 'open' then
    list.size = list.size or redis.call('HLEN', list.m)
    if list.size < max or redis.call('HEXISTS', list.m, address) == 1 then
      return list, list.late == '1'
    end
    -- Full: due now; the window goes on in a continuation due when the full list would have been.
    local dueAt = list.due
    redis.call('HSET', list.l, 'due', now)
    redis.call('ZADD', due, now, current)
    list.due = now
    local n = redis.call('HINCRBY', window.w, 'parts', 1) + 1
    return open(window, name .. '-' .. n, dueAt, list.late), list.late == '1'
  end
  if policy == 'next-window' and mayDefer then return nil, false end
  local n = redis.call('HINCRBY', window.w, 'lates', 1)
  return open(window, name .. '-late-' .. n, now + linger, '1'), true
end

local function add(base, baseEnd, present, presentEnd, ref, order, address, member)
  local window = windowOf(base)
  local known = redis.call('HGET', window.o, ref)
  if known then return {'duplicate', known} end
  local status = 'added'
  local list, late = place(base, baseEnd, address, true)
  if late then status = 'late' end
  if not list then
    list = place(present, presentEnd, address, false)
    status = 'next-window'
  end
  if redis.call('HSET', list.m, address, member) == 1 then
    newMembers = newMembers + 1
    if list.size then list.size = list.size + 1 end
  end
  redis.call('HSET', list.r, ref, order)
  redis.call('HSET', window.o, ref, list.name)
  -- The keys this order read or wrote, all there by now: the present window's only when the
  -- order went to it (asked for every order, it was once per order for a key none had made).
  for _, key in ipairs({list.l, list.m, list.r, window.w, window.o}) do
    keep(key, list.due, retention)
  end
  if status == 'next-window' then keep(windows[present].w, list.due, retention) end
  return {status, list.name}
end

local placements = {}
for i = 7, #ARGV, 8 do
  placements[#placements + 1] = add(ARGV[i], tonumber(ARGV[i + 1]), ARGV[i + 2],
    tonumber(ARGV[i + 3]), ARGV[i + 4], ARGV[i + 5], ARGV[i + 6], ARGV[i + 7])
end
-- The open members' count, once for the call rather than once for each new member.
if newMembers > 0 then redis.call('HINCRBY', counts, 'members', newMembers) end
return placements
`;

/** The first due list free to take: open, or held under a lease that lapsed (its owner stopped). */
const TAKE_SCRIPT = `${COMMON}
local owner, leaseMs, retention = ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])
local due = P .. 'win:due'
for _, name in ipairs(redis.call('ZRANGEBYSCORE', due, '-inf', now, 'LIMIT', 0, 50)) do
  local l = P .. 'win:l:' .. name
  local state, holder, lease, listId, ambiguous =
    unpack(redis.call('HMGET', l, 'state', 'owner', 'lease', 'listId', 'ambiguous'))
  local free = state == 'open'
  if state == 'taken' or state == 'sending' or state == 'created' then
    free = tonumber(lease) <= now or holder == ''
  elseif not state or state == 'published' then
    redis.call('ZREM', due, name) -- expired, or published and left behind
  end
  if free then
    local next = state
    if state == 'open' then next = 'taken' end
    redis.call('HSET', l, 'state', next, 'owner', owner, 'lease', now + leaseMs)
    redis.call('ZADD', due, now + leaseMs, name)
    for _, key in ipairs({l, P .. 'win:m:' .. name, P .. 'win:r:' .. name}) do
      keep(key, now, retention)
    end
    return {name, state, listId or '', ambiguous or '0',
      redis.call('HVALS', P .. 'win:m:' .. name), redis.call('HVALS', P .. 'win:r:' .. name)}
  end
end
return false
`;

const RENEW_SCRIPT = `${COMMON}
local name, owner, leaseMs = ARGV[3], ARGV[4], tonumber(ARGV[5])
if not held(name, owner) then return 0 end
redis.call('HSET', P .. 'win:l:' .. name, 'lease', now + leaseMs)
redis.call('ZADD', P .. 'win:due', now + leaseMs, name)
return 1
`;

const MARK_SENDING_SCRIPT = `${COMMON}
local name, owner = ARGV[3], ARGV[4]
local state = held(name, owner)
if state ~= 'taken' and state ~= 'sending' then return 0 end
redis.call('HSET', P .. 'win:l:' .. name, 'state', 'sending')
return 1
`;

const CREATED_SCRIPT = `${COMMON}
local name, owner, listId, ambiguous = ARGV[3], ARGV[4], ARGV[5], ARGV[6]
if not held(name, owner) then return 0 end
redis.call('HSET', P .. 'win:l:' .. name, 'state', 'created', 'listId', listId, 'ambiguous', ambiguous)
return 1
`;

const PUBLISHED_SCRIPT = `${COMMON}
local name, owner, retention = ARGV[3], ARGV[4], tonumber(ARGV[5])
if not held(name, owner) then return 0 end
local counts = P .. 'win:open'
redis.call('HSET', P .. 'win:l:' .. name, 'state', 'published')
redis.call('ZREM', P .. 'win:due', name)
redis.call('HINCRBY', counts, 'lists', -1)
redis.call('HINCRBY', counts, 'members', -redis.call('HLEN', P .. 'win:m:' .. name))
for _, key in ipairs({'win:l:', 'win:m:', 'win:r:'}) do
  redis.call('EXPIRE', P .. key .. name, retention)
end
return 1
`;

const GIVE_BACK_SCRIPT = `${COMMON}
local name, owner, dueAt = ARGV[3], ARGV[4], tonumber(ARGV[5])
local state = held(name, owner)
if not state then return 0 end
if state == 'taken' then state = 'open' end
redis.call('HSET', P .. 'win:l:' .. name, 'state', state, 'owner', '', 'lease', 0, 'due', dueAt)
redis.call('ZADD', P .. 'win:due', dueAt, name)
return 1
`;

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

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly options: WindowStoreOptions,
    private readonly now: () => number = Date.now,
  ) {
    const scripts: Record<string, string> = {
      mailbridgeWindowAdd: ADD_SCRIPT,
      mailbridgeWindowTake: TAKE_SCRIPT,
      mailbridgeWindowRenew: RENEW_SCRIPT,
      mailbridgeWindowMarkSending: MARK_SENDING_SCRIPT,
      mailbridgeWindowCreated: CREATED_SCRIPT,
      mailbridgeWindowPublished: PUBLISHED_SCRIPT,
      mailbridgeWindowGiveBack: GIVE_BACK_SCRIPT,
    };
    // Loaded once and then called by SHA (EVALSHA), like the idempotency store's scripts.
    for (const [name, lua] of Object.entries(scripts)) {
      redis.defineCommand(name, { numberOfKeys: 0, lua });
    }
  }

  add(entry: WindowEntry): Promise<Placement> {
    return this.adds.call(entry);
  }

  /** The orders of one turn, placed by one script call in the order they came. */
  private async addMany(entries: WindowEntry[]): Promise<Placement[]> {
    const { lingerMs, maxMembers, latePolicy, retentionSeconds } = this.options;
    const args = [
      ...this.head(),
      String(lingerMs),
      String(maxMembers),
      latePolicy,
      String(retentionSeconds),
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
    const replies = await this.redis.mailbridgeWindowAdd(...args);
    return replies.map(([status, list]) => ({ status, list }));
  }

  async take(owner: string, leaseMs: number): Promise<TakenList | undefined> {
    const reply = await this.redis.mailbridgeWindowTake(
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
      (await this.redis.mailbridgeWindowRenew(...this.head(), name, owner, String(leaseMs))) === 1
    );
  }

  async markSending(name: string, owner: string): Promise<boolean> {
    return (await this.redis.mailbridgeWindowMarkSending(...this.head(), name, owner)) === 1;
  }

  async created(name: string, owner: string, listId: string, ambiguous: boolean): Promise<boolean> {
    const reply = await this.redis.mailbridgeWindowCreated(
      ...this.head(),
      name,
      owner,
      listId,
      ambiguous ? '1' : '0',
    );
    return reply === 1;
  }

  async published(name: string, owner: string): Promise<boolean> {
    const reply = await this.redis.mailbridgeWindowPublished(
      ...this.head(),
      name,
      owner,
      String(this.options.retentionSeconds),
    );
    return reply === 1;
  }

  async giveBack(name: string, owner: string, dueAt: number): Promise<void> {
    await this.redis.mailbridgeWindowGiveBack(...this.head(), name, owner, String(dueAt));
  }

  async nextDue(): Promise<number | undefined> {
    const [, score] = await this.redis.zrange(`${this.prefix}win:due`, '0', '0', 'WITHSCORES');
    return score === undefined ? undefined : Number(score);
  }

  async openCounts(): Promise<{ lists: number; members: number }> {
    const [lists, members] = await this.redis.hmget(`${this.prefix}win:open`, 'lists', 'members');
    return { lists: Math.max(0, Number(lists ?? 0)), members: Math.max(0, Number(members ?? 0)) };
  }

  /** The connection is `RedisModule`'s: it closes it. */
  close(): Promise<void> {
    return Promise.resolve();
  }

  private head(): [string, string] {
    return [this.prefix, String(this.now())];
  }
}
