-- Erasure: the member of one address leaves every list not yet published (every list in the
-- due set; a published list keeps no members). KEYS: the due set, the open counts.
-- ARGV[3]: the normalised address. Returns how many lists held it.
local due, counts, address = KEYS[1], KEYS[2], ARGV[3]
local lists = 0
for _, name in ipairs(redis.call('ZRANGE', due, 0, -1)) do
  if redis.call('HDEL', B .. 'm:' .. name, address) == 1 then lists = lists + 1 end
end
if lists > 0 then redis.call('HINCRBY', counts, 'members', -lists) end
return lists
