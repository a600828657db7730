-- KEYS[1]: the suppression hash. ARGV: the address's keyed hash, scope.
-- An erased entry is for good: a remove leaves it.
local field = ARGV[2] .. ':' .. ARGV[1]
if redis.call('HGET', KEYS[1], field) == 'erased' then return 0 end
return redis.call('HDEL', KEYS[1], field)
