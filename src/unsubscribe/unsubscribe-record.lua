-- Queues an unsubscribe once: KEYS[1] remembers its id, KEYS[2] is the outbox list.
-- ARGV[1]: the unsubscribe as JSON; ARGV[2]: how long to remember the id, in ms.
if redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[2]) then
  redis.call('RPUSH', KEYS[2], ARGV[1])
  return 1
end
return 0
