"""The Lua scripts of the Redis store (`redis.py`) and of its Redis Cluster save path
(`cluster_saves.py`): each a write that must be atomic in Redis. The migration tool runs the lobby
index script too."""

# KEYS: room hash, room log, lobby hash, rooms set.
# ARGV: expected version, state JSON ("": the state stored at the expected version, unchanged), room
# id, lobby JSON ("" removes the entry), log entries...
SAVE_SCRIPT = """
local found = tonumber(redis.call('HGET', KEYS[1], 'version') or '0')
if found ~= tonumber(ARGV[1]) then
  return {0, found}
end
local version = found + 1
if ARGV[2] == '' then
  redis.call('HSET', KEYS[1], 'version', version)
else
  redis.call('HSET', KEYS[1], 'version', version, 'state', ARGV[2])
end
if found == 0 then
  redis.call('SADD', KEYS[4], ARGV[3])
end
for i = 5, #ARGV do
  redis.call('RPUSH', KEYS[2], ARGV[i])
end
if ARGV[4] == '' then
  redis.call('HDEL', KEYS[3], ARGV[3])
else
  redis.call('HSET', KEYS[3], ARGV[3], ARGV[4])
end
return {1, version}
"""


# The save of a Redis Cluster: the room's own slot only. KEYS: room hash, room log. ARGV as above.
# Answers {1, version, lobby line changed (0/1), new room (0/1)} or {0, found}.
SAVE_ROOM_SCRIPT = """
local found = tonumber(redis.call('HGET', KEYS[1], 'version') or '0')
if found ~= tonumber(ARGV[1]) then
  return {0, found}
end
local version = found + 1
if ARGV[2] == '' then
  redis.call('HSET', KEYS[1], 'version', version)
else
  redis.call('HSET', KEYS[1], 'version', version, 'state', ARGV[2])
end
for i = 5, #ARGV do
  redis.call('RPUSH', KEYS[2], ARGV[i])
end
local changed = 0
if redis.call('HGET', KEYS[1], 'lobby') ~= ARGV[4] then
  redis.call('HSET', KEYS[1], 'lobby', ARGV[4])
  changed = 1
end
local new = 0
if found == 0 then
  new = 1
end
return {1, version, changed, new}
"""

# The lobby index of a Redis Cluster (one slot: the lobby and its versions). KEYS: lobby hash, lobby
# versions hash. ARGV: room id, version, lobby JSON ("" removes the entry). Written only if no newer
# version of the room's line is there already. 1 if written.
LOBBY_INDEX_SCRIPT = """
local known = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0')
if known >= tonumber(ARGV[2]) then
  return 0
end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
if ARGV[3] == '' then
  redis.call('HDEL', KEYS[1], ARGV[1])
else
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
end
return 1
"""


# KEYS: room hash, room log, players hash, chat list; then rooms set, lobby hash, owner book (absent on a
# Redis Cluster: each in its own slot, done after). ARGV: room id, archived session number, expiry (ms).
RETAIN_SCRIPT = """
if redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
redis.call('HSET', KEYS[1], 'archived', ARGV[2])
for i = 1, 4 do
  redis.call('PEXPIRE', KEYS[i], ARGV[3])
end
if #KEYS > 4 then
  redis.call('SREM', KEYS[5], ARGV[1])
  redis.call('HDEL', KEYS[6], ARGV[1])
  redis.call('HDEL', KEYS[7], ARGV[1])
end
return 1
"""

# KEYS: room hash, room log, players hash, chat list, rooms set (absent on a Redis Cluster: added
# after). ARGV: room id.
PERSIST_SCRIPT = """
if redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
for i = 1, 4 do
  redis.call('PERSIST', KEYS[i])
end
if #KEYS > 4 then
  redis.call('SADD', KEYS[5], ARGV[1])
end
return 1
"""

# A key of a room written after the room got its expiry takes the room's (it must not outlive it).
# KEYS: room hash, the key. ARGV: what to do (hset FIELD VALUE | hdel FIELD | chat LINE KEEP). Returns 0
# (nothing written) when the room hash is gone: no key outlives its room.
ROOM_KEY_SCRIPT = """
local ttl = redis.call('PTTL', KEYS[1])
if ttl == -2 then
  return 0
end
if ARGV[1] == 'hset' then
  redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
elseif ARGV[1] == 'hdel' then
  redis.call('HDEL', KEYS[2], ARGV[2])
else
  redis.call('RPUSH', KEYS[2], ARGV[2])
  redis.call('LTRIM', KEYS[2], -tonumber(ARGV[3]), -1)
end
if ttl > 0 then
  redis.call('PEXPIRE', KEYS[2], ttl)
end
return 1
"""
