local name, owner, dueAt = ARGV[3], ARGV[4], tonumber(ARGV[5])
local state = held(name, owner)
if not state then return 0 end
if state == 'taken' then state = 'open' end
redis.call('HSET', P .. 'win:l:' .. name, 'state', state, 'owner', '', 'lease', 0, 'due', dueAt)
redis.call('ZADD', P .. 'win:due', dueAt, name)
return 1
