-- One reply per key, 1 when it was still the given holder's and is now marked `sending`.
local held = {}
for i, key in ipairs(KEYS) do
  held[i] = 0
  local value = redis.call('GET', key)
  if value then
    local _, _, owner, expires = string.find(value, '^claim|(.-)|(%d+)|%a+$')
    if owner == ARGV[i] then
      redis.call('SET', key, 'claim|' .. owner .. '|' .. expires .. '|sending', 'KEEPTTL')
      held[i] = 1
    end
  end
end
return held
