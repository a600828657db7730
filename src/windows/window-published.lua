local name, owner, retention = ARGV[3], ARGV[4], tonumber(ARGV[5])
if not held(name, owner) then return 0 end
local counts = P .. 'win:open'
redis.call('HSET', P .. 'win:l:' .. name, 'state', 'published')
redis.call('ZREM', P .. 'win:due', name)
redis.call('HINCRBY', counts, 'lists', -1)
redis.call('HINCRBY', counts, 'members', -redis.call('HLEN', P .. 'win:m:' .. name))
for _, key in ipairs({'win:l:', 'win:m:', 'win:r:'}) do
  redis.call('EXPIRE', P .. key .. name, retention)
end
return 1
