local now, ttl, retention, live = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3], ARGV[4]
local replies = {}
for i, key in ipairs(KEYS) do
  local holder = ARGV[4 + i]
  local claimed = 'claim|' .. holder .. '|' .. (now + ttl) .. '|'
  local value = redis.call('GET', key)
  local reply
  if not value then
    redis.call('SET', key, claimed .. 'claimed', 'EX', retention)
    reply = 'claimed'
  elseif string.sub(value, 1, 5) == 'done|' then
    reply = value
  else
    local _, _, owner, expires, phase = string.find(value, '^claim|(.-)|(%d+)|(%a+)$')
    if owner == holder then
      reply = 'claimed'
    else
      if owner then
        local instance = string.match(owner, '^(.*)/[^/]*$')
        if tonumber(expires) > now and redis.call('EXISTS', live .. instance) == 1 then
          reply = 'busy'
        end
      end
      if not reply then
        -- Unless the claim never reached 'sending', a request may have been written: the new
        -- claim keeps the mark, so that whoever takes it over next learns it too.
        local mark = phase == 'claimed' and 'claimed' or 'sending'
        redis.call('SET', key, claimed .. mark, 'EX', retention)
        if mark == 'claimed' then reply = 'reclaimed' else reply = 'reclaimed-maybe-sent' end
      end
    end
  end
  replies[i] = reply
end
return replies
