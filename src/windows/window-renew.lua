local name, owner, leaseMs = ARGV[3], ARGV[4], tonumber(ARGV[5])
if not held(name, owner) then return 0 end
redis.call('HSET', P .. 'win:l:' .. name, 'lease', now + leaseMs)
redis.call('ZADD', P .. 'win:due', now + leaseMs, name)
return 1
