-- KEYS: the list, the due set. ARGV[3..5]: the list's name, owner, when it is due again.
local name, owner, dueAt = ARGV[3], ARGV[4], tonumber(ARGV[5])
local state = held(KEYS[1], owner)
if not state then return 0 end
if state == 'taken' then state = 'open' end
redis.call('HSET', KEYS[1], 'state', state, 'owner', '', 'lease', 0, 'due', dueAt)
redis.call('ZADD', KEYS[2], dueAt, name)
return 1
