-- Removes the first ARGV[2] entries of the outbox KEYS[2] and frees the drain lease KEYS[1],
-- only while that lease is still ARGV[1]'s: a drainer whose lease lapsed and was taken over must
-- not remove what the next one has not published yet (it publishes them again instead).
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return 0
end
if tonumber(ARGV[2]) > 0 then
  redis.call('LTRIM', KEYS[2], ARGV[2], -1)
end
redis.call('DEL', KEYS[1])
return 1
