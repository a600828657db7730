-- `takeToken` and `holdBack` of budget.store.ts in one script, so that reading and moving the
-- bucket's TAT is one atomic step for every replica. The time is Redis's own (`TIME`) unless a
-- test passes one: the replicas' clocks never enter. The key expires once its TAT is past, when
-- a missing key means the same as the stored one.
-- KEYS[1]: the bucket. ARGV: op (take|shrink), interval ms, tolerance ms, hold ms, now ms or ''.
-- Replies: take → 0 (granted) or the ms to wait; shrink → 1 if the hold moved the TAT, else 0.
local interval, tolerance = tonumber(ARGV[2]), tonumber(ARGV[3])
local now = tonumber(ARGV[5])
if not now then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
local tat = now
local stored = redis.call('GET', KEYS[1])
if stored then tat = math.max(tonumber(stored), now) end
if ARGV[1] == 'shrink' then
  local held = now + tonumber(ARGV[4]) + tolerance
  if held <= tat then return 0 end
  redis.call('SET', KEYS[1], held, 'PX', held - now + 1000)
  return 1
end
local wait = tat - tolerance - now
if wait > 0 then return wait end
tat = tat + interval
redis.call('SET', KEYS[1], tat, 'PX', tat - now + 1000)
return 0
