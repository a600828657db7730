-- Redis's clock, and the standing close with its time left (empty when the gate is open).
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local current = redis.call('GET', KEYS[1])
if not current then return {now, '', 0} end
local left = cjson.decode(current)['until'] - now
if left <= 0 then return {now, '', 0} end
return {now, current, left}
