-- Claims KEYS[i] for holder ARGV[3 + i]. ARGV[1..3]: now (ms), the claim's TTL (ms), retention (s);
-- ARGV[3 + #KEYS + i]: an instance the caller found not alive, or a holder (instance/handling)
-- of the caller's process that gave KEYS[i] up without an outcome ('' for none), whose
-- unexpired claim on KEYS[i] may be taken over. Replies, one per key: 'claimed', 'reclaimed',
-- 'reclaimed-maybe-sent', the key's 'done|…' outcome, or 'held|<instance>' while another
-- instance's claim is unexpired: whether that instance is alive is its own key, in another hash
-- slot, so the caller asks and claims again naming it if it is not (redis-idempotency.store.ts).
local now, ttl, retention = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
local count = #KEYS
local replies = {}
for i, key in ipairs(KEYS) do
  local holder, dead = ARGV[3 + i], ARGV[3 + count + i]
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
        if tonumber(expires) > now and instance ~= dead and owner ~= dead then
          reply = 'held|' .. instance
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
