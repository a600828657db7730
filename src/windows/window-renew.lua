-- KEYS: the list, the due set. ARGV[3..5]: the list's name, owner, lease (ms).
local name, owner, leaseMs = ARGV[3], ARGV[4], tonumber(ARGV[5])
if not held(KEYS[1], owner) then return 0 end
redis.call('HSET', KEYS[1], 'lease', now + leaseMs)
redis.call('ZADD', KEYS[2], now + leaseMs, name)
return 1
