-- KEYS[1]: the list. ARGV[3..5]: owner, the vendor's list id, ambiguous ('1' or '0').
local owner, listId, ambiguous = ARGV[3], ARGV[4], ARGV[5]
if not held(KEYS[1], owner) then return 0 end
redis.call('HSET', KEYS[1], 'state', 'created', 'listId', listId, 'ambiguous', ambiguous)
return 1
