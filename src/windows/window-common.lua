-- The head of every window script. ARGV[1]: the base of the window keys' names, `<prefix>win:`
-- (or `{<prefix>win}:` on a sharded Redis, so that every window key shares one hash slot);
-- ARGV[2]: now (ms). Keys a script finds by name (a window's lists) are built from the base.
local B, now = ARGV[1], tonumber(ARGV[2])
-- Expiries this call has made sure of: a turn's orders mostly share their list and window, so
-- asking Redis again for each of them would repeat, order after order, a PTTL already answered.
-- Nothing in a script shortens an expiry, and keys are kept once written, so a kept key stays kept.
local kept = {}
local function keep(key, fromMs, retention)
  local at = fromMs + retention * 1000
  if kept[key] and kept[key] >= at then return end
  local ttl = redis.call('PTTL', key)
  if ttl < 0 or now + ttl < at then redis.call('PEXPIREAT', key, at) end
  kept[key] = math.max(at, now + ttl)
end
-- The state of the list whose key is `l` while `owner` holds it; nil when it is not theirs.
local function held(l, owner)
  local state, holder = unpack(redis.call('HMGET', l, 'state', 'owner'))
  if holder ~= owner then return nil end
  if state == 'taken' or state == 'sending' or state == 'created' then return state end
  return nil
end
