local value = redis.call('GET', KEYS[1])
if not value then return 0 end
local _, _, owner, phase = string.find(value, '^claim|(.-)|%d+|(%a+)$')
if owner ~= ARGV[1] then return 0 end
local expires = tonumber(ARGV[2]) + tonumber(ARGV[3])
redis.call('SET', KEYS[1], 'claim|' .. owner .. '|' .. expires .. '|' .. phase, 'EX', ARGV[4])
return 1
