-- Records finished keys' outcomes, kept for ARGV[1] seconds: ARGV[1 + i] is KEYS[i]'s value, and
-- ARGV[1 + #KEYS + i] says how — `set`, or `mark` for an order's in-window mark, written unless
-- its list's outcome is recorded already (the list closed). One command for a whole batch of
-- outcomes: a MULTI of one SET each made ioredis build a command object per key.
local retention, count = ARGV[1], #KEYS
for i, key in ipairs(KEYS) do
  local current = ARGV[1 + count + i] == 'mark' and redis.call('GET', key)
  if not (current and string.sub(current, 1, 5) == 'done|') then
    redis.call('SET', key, ARGV[1 + i], 'EX', retention)
  end
end
return count
