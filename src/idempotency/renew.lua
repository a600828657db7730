-- A key holds `claim|<instance>/<handling>|<expiresAt ms>|<phase>` (phase `claimed`, or
-- `sending` once a request for the action may have been written, by this holder or one before
-- it) while an action runs, and `done|<outcome JSON>` once it finished. An instance is
-- alive while `<prefix>instance:<instance>` exists; its heartbeat keeps that key a few seconds
-- ahead. The scripts read that key by a name built inside the script, so the store needs one
-- Redis (standalone or with replicas), not a cluster that shards keys.
local value = redis.call('GET', KEYS[1])
if not value then return 0 end
local _, _, owner, phase = string.find(value, '^claim|(.-)|%d+|(%a+)$')
if owner ~= ARGV[1] then return 0 end
local expires = tonumber(ARGV[2]) + tonumber(ARGV[3])
redis.call('SET', KEYS[1], 'claim|' .. owner .. '|' .. expires .. '|' .. phase, 'EX', ARGV[4])
return 1
