-- KEYS[1]: the suppression hash. ARGV: the address's keyed hash, scope, reason.
-- An erased entry is for good: nothing replaces it, and erasing leaves only the `all` entry.
local list, hash, scope, reason = KEYS[1], ARGV[1], ARGV[2], ARGV[3]
if reason == 'erased' then
  redis.call('HSET', list, 'all:' .. hash, 'erased')
  redis.call('HDEL', list, 'marketing:' .. hash)
  return 1
end
local field = scope .. ':' .. hash
if redis.call('HGET', list, field) == 'erased' then return 0 end
redis.call('HSET', list, field, reason)
return 1
