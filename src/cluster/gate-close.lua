-- Closes for ARGV[2] ms from now unless the standing close lasts as long already (extend-only),
-- and publishes the new close (with its time left) on ARGV[5]. A close that arrives after ARGV[6]
-- (Redis's clock; empty: no limit) was held up and is dropped. Returns {changed (2: dropped),
-- close, left, now}.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if ARGV[6] ~= '' and now > tonumber(ARGV[6]) then return {2, '', 0, now} end
local pause = tonumber(ARGV[2])
local current = redis.call('GET', KEYS[1])
if current then
  local standing = cjson.decode(current)
  if standing['until'] >= now + pause then
    return {0, current, standing['until'] - now, now}
  end
end
local value = cjson.encode({reason = ARGV[1], ['until'] = now + pause, detail = ARGV[3], origin = ARGV[4]})
redis.call('SET', KEYS[1], value, 'PX', pause)
redis.call('PUBLISH', ARGV[5], cjson.encode({close = value, remainingMs = pause}))
return {1, value, pause, now}
