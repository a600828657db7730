-- KEYS[1]: the list. ARGV[3]: owner.
local state = held(KEYS[1], ARGV[3])
if state ~= 'taken' and state ~= 'sending' then return 0 end
redis.call('HSET', KEYS[1], 'state', 'sending')
return 1
