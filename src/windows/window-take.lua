-- The first due list free to take: open, or held under a lease that lapsed (its owner stopped).
-- KEYS[1]: the due set; the lists it names are found by their names (their keys share its slot).
-- ARGV[3..5]: owner, lease (ms), retention (s).
local owner, leaseMs, retention = ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])
local due = KEYS[1]
for _, name in ipairs(redis.call('ZRANGEBYSCORE', due, '-inf', now, 'LIMIT', 0, 50)) do
  local l, m, r = B .. 'l:' .. name, B .. 'm:' .. name, B .. 'r:' .. name
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
    for _, key in ipairs({l, m, r}) do keep(key, now, retention) end
    return {name, state, listId or '', ambiguous or '0', redis.call('HVALS', m), redis.call('HVALS', r)}
  end
end
return false
