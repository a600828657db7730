-- KEYS: the list, its members, its orders, the due set, the open counts.
-- ARGV[3..5]: the list's name, owner, retention (s).
local name, owner, retention = ARGV[3], ARGV[4], tonumber(ARGV[5])
local l, m, r, due, counts = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
if not held(l, owner) then return 0 end
redis.call('HSET', l, 'state', 'published')
redis.call('ZREM', due, name)
redis.call('HINCRBY', counts, 'lists', -1)
-- An erasure can leave a list with no member: HINCRBY refuses the "-0" Lua makes of -0.
local size = redis.call('HLEN', m)
if size > 0 then redis.call('HINCRBY', counts, 'members', -size) end
-- The members' addresses are needed no more: deleted now, not kept for the retention.
redis.call('DEL', m)
for _, key in ipairs({l, r}) do redis.call('EXPIRE', key, retention) end
return 1
