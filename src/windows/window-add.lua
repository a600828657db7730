-- Adds the orders of one turn (`Coalescer`), one after another, exactly as separate calls would.
-- KEYS: the due set, the open counts, then each window's two keys (`w:`, `o:`) in turn.
-- ARGV[3..6]: linger (ms), max members, late policy, retention (s); ARGV[7]: the number of
-- windows, k; ARGV[8..7+k]: their names, in the order of their keys; then 8 arguments an order,
-- each of which gets its own {status, list}. A window's lists are found by name from the base.
local linger, max, policy, retention = tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5], tonumber(ARGV[6])
local due, counts = KEYS[1], KEYS[2]
-- What this call has read or written of each window and each list, with their keys' names: a
-- turn's orders mostly share one of each, and only this script changes them while it runs, so
-- each is read from Redis once per call and kept up to date here as the script writes it.
local windows = {} -- window name -> {w, o (keys), current (its list's name, false for none)}
local lists = {}   -- list name -> {name, l, m, r (keys), state, late, due, size (when read)}
local newMembers = 0

local windowCount = tonumber(ARGV[7])
for i = 1, windowCount do
  windows[ARGV[7 + i]] = {w = KEYS[1 + 2 * i], o = KEYS[2 + 2 * i]}
end

local function newList(name)
  local list = {name = name, l = B .. 'l:' .. name, m = B .. 'm:' .. name, r = B .. 'r:' .. name}
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
  local window = windows[name]
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
  local window = windows[base]
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
for i = 8 + windowCount, #ARGV, 8 do
  placements[#placements + 1] = add(ARGV[i], tonumber(ARGV[i + 1]), ARGV[i + 2],
    tonumber(ARGV[i + 3]), ARGV[i + 4], ARGV[i + 5], ARGV[i + 6], ARGV[i + 7])
end
-- The open members' count, once for the call rather than once for each new member.
if newMembers > 0 then redis.call('HINCRBY', counts, 'members', newMembers) end
return placements
