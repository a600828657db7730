-- The first due list free to take: open, or held under a lease that lapsed (its owner stopped).
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
