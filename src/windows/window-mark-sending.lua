local name, owner = ARGV[3], ARGV[4]
local state = held(name, owner)
if state ~= 'taken' and state ~= 'sending' then return 0 end
redis.call('HSET', P .. 'win:l:' .. name, 'state', 'sending')
return 1
