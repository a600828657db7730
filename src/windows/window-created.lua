local name, owner, listId, ambiguous = ARGV[3], ARGV[4], ARGV[5], ARGV[6]
if not held(name, owner) then return 0 end
redis.call('HSET', P .. 'win:l:' .. name, 'state', 'created', 'listId', listId, 'ambiguous', ambiguous)
return 1
