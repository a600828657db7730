-- A claim that never reached `sending` is deleted; one that did keeps its mark and expires at
-- once, so that the next claimer knows the request may have been written.
local value = redis.call('GET', KEYS[1])
if not value or string.find(value, 'claim|' .. ARGV[1] .. '|', 1, true) ~= 1 then
  return 0
end
if string.sub(value, -8) == '|sending' then
  redis.call('SET', KEYS[1], 'claim|' .. ARGV[1] .. '|0|sending', 'KEEPTTL')
else
  redis.call('DEL', KEYS[1])
end
return 1
