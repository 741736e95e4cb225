/**
 * The Lua scripts `redisStore()` runs, each one atomic step of the protocol on one session's keys
 * (one round trip). Every script takes the session's four keys in this order:
 *
 * - `KEYS[1]` meta, a hash: `h` the process holding the session's connection, `g` set at its first
 *   hello, `e` its epoch, `q` the order of the outbox, `b` the bytes the outbox counts, `n` the
 *   order of the window, `x<id>` a message given up whose sender was not told yet;
 * - `KEYS[2]` window, a sorted set: the ids of the latest `window` messages the client sent, by
 *   arrival (the de-duplication window);
 * - `KEYS[3]` outbox, a hash: message id → `<sending process> <bytes it counts> <stored frame>`;
 * - `KEYS[4]` order, a sorted set: the outbox's ids in the order they were stored.
 *
 * Every script that finds the session alive leaves all four with the same TTL, `sessionTtl`
 * (`ARGV[1]`, ms; `'0'` for none). A process reaches another through its channel, `<prefix>p:<id>`
 * (`ARGV[2]` is `<prefix>p:`): the JSON messages `{ t, s, id, f }` published there are read by
 * `./cluster.ts`.
 */

/**
 * What every script may call: `touch()` leaves the session's keys with the TTL (or none), at
 * least a second while a process holds the session (its refresh comes every quarter of
 * `sessionTtl`, but at most every 250 ms: a shorter TTL would end a held session between two);
 * `epoch()` gives the session its epoch if it has none (the meta's `e`: Redis's clock when the
 * session was made) and returns it (a session Redis lost, restarted without persistence, and
 * made again has another epoch: a sender can tell its message was lost rather than
 * acknowledged); `outbox()` lists the outbox in order as id, sender, stored frame, ….
 */
const COMMON = `
local function touch()
  local ttl = tonumber(ARGV[1])
  if ttl > 0 and ttl < 1000 and redis.call('HEXISTS', KEYS[1], 'h') == 1 then ttl = 1000 end
  for i = 1, 4 do
    if ttl == 0 then redis.call('PERSIST', KEYS[i]) else redis.call('PEXPIRE', KEYS[i], ttl) end
  end
end
local function epoch()
  local time = redis.call('TIME')
  redis.call('HSETNX', KEYS[1], 'e', time[1] .. '.' .. time[2])
  return redis.call('HGET', KEYS[1], 'e')
end
local function outbox()
  local out = {}
  for _, id in ipairs(redis.call('ZRANGE', KEYS[4], 0, -1)) do
    local entry = redis.call('HGET', KEYS[3], id)
    if entry then
      local first_space = string.find(entry, ' ', 1, true)
      local second_space = string.find(entry, ' ', first_space + 1, true)
      table.insert(out, id)
      table.insert(out, string.sub(entry, 1, first_space - 1))
      table.insert(out, string.sub(entry, second_space + 1))
    end
  end
  return out
end
`;

/**
 * A hello on process `ARGV[3]` for session `ARGV[4]`: it holds the session now (the one that held
 * it is told, `moved`). Returns `{ first, outbox }`: `first` 1 for the session's first hello in
 * the cluster (the meta field `g` says one came), the outbox as id, sender, frame, … in order.
 */
export const HELLO = `${COMMON}
epoch()
local first = redis.call('HSETNX', KEYS[1], 'g', 1)
local previous = redis.call('HGET', KEYS[1], 'h')
redis.call('HSET', KEYS[1], 'h', ARGV[3])
if previous and previous ~= ARGV[3] then
  redis.call('PUBLISH', ARGV[2] .. previous, cjson.encode({ t = 'moved', s = ARGV[4] }))
end
local out = outbox()
touch()
return { first, out }`;

/**
 * Process `ARGV[3]` stores message `ARGV[5]` (stored frame `ARGV[6]`, counting `ARGV[8]` bytes)
 * for session `ARGV[4]` and hands it to the holder, unless `ARGV[7]` messages already wait or the
 * outbox would count more than `ARGV[9]` bytes (`'-1'`: no bound). Returns `{ holder, epoch }`
 * (`''` for no holder; the sender itself may be it), or 1 when the outbox has `ARGV[7]` messages,
 * 2 when it would pass its bytes.
 */
export const SEND = `${COMMON}
if redis.call('ZCARD', KEYS[4]) >= tonumber(ARGV[7]) then return 1 end
local bytes = tonumber(redis.call('HGET', KEYS[1], 'b') or '0') + tonumber(ARGV[8])
if ARGV[9] ~= '-1' and bytes > tonumber(ARGV[9]) then return 2 end
local e = epoch()
local order = redis.call('HINCRBY', KEYS[1], 'q', 1)
redis.call('HSET', KEYS[1], 'b', bytes)
redis.call('HSET', KEYS[3], ARGV[5], ARGV[3] .. ' ' .. ARGV[8] .. ' ' .. ARGV[6])
redis.call('ZADD', KEYS[4], order, ARGV[5])
local holder = redis.call('HGET', KEYS[1], 'h') or ''
if holder ~= '' and holder ~= ARGV[3] then
  redis.call('PUBLISH', ARGV[2] .. holder, cjson.encode({ t = 'msg', s = ARGV[4], id = ARGV[5], f = ARGV[6] }))
end
touch()
return { holder, e }`;

/**
 * The client acknowledged message `ARGV[5]` of session `ARGV[4]` on process `ARGV[3]` (or, with
 * `ARGV[6]` = `'gaveup'`, the holder gave it up): it leaves the outbox, and its sender is told
 * unless it is `ARGV[3]`. Returns the sender, or `false` for a message not (or no longer) there.
 */
export const SETTLE = `${COMMON}
local entry = redis.call('HGET', KEYS[3], ARGV[5])
if not entry then return false end
redis.call('HDEL', KEYS[3], ARGV[5])
redis.call('ZREM', KEYS[4], ARGV[5])
local first_space = string.find(entry, ' ', 1, true)
local sender = string.sub(entry, 1, first_space - 1)
local size = tonumber(string.sub(entry, first_space + 1, string.find(entry, ' ', first_space + 1, true) - 1))
redis.call('HINCRBY', KEYS[1], 'b', -size)
if sender ~= ARGV[3] then
  redis.call('PUBLISH', ARGV[2] .. sender, cjson.encode({ t = ARGV[6], s = ARGV[4], id = ARGV[5] }))
  -- For a sender that could not hear it (its subscription was down): its poll finds it.
  if ARGV[6] == 'gaveup' then redis.call('HSET', KEYS[1], 'x' .. ARGV[5], 1) end
end
touch()
return sender`;

/**
 * What became of the messages `ARGV[3..]` a process sent to the session (for one that may have
 * missed being told): the session's epoch, then per id 1 still pending, 0 acknowledged, 2 given up
 * (the mark is taken away). Returns -1 when the session is gone (it expired).
 */
export const POLL = `
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
local states = { redis.call('HGET', KEYS[1], 'e') or '' }
for i = 3, #ARGV do
  if redis.call('HEXISTS', KEYS[3], ARGV[i]) == 1 then states[#states + 1] = 1
  elseif redis.call('HDEL', KEYS[1], 'x' .. ARGV[i]) == 1 then states[#states + 1] = 2
  else states[#states + 1] = 0 end
end
return states`;

/**
 * Process `ARGV[3]` handled the client's message `ARGV[4]`: it joins the window (the oldest past
 * `ARGV[5]` ids leave), and the process holds the session if nobody does (after a Redis that lost
 * its data came back). Returns 1.
 */
export const MARK = `${COMMON}
epoch()
local n = redis.call('HINCRBY', KEYS[1], 'n', 1)
redis.call('ZADD', KEYS[2], n, ARGV[4])
redis.call('ZREMRANGEBYRANK', KEYS[2], 0, -tonumber(ARGV[5]) - 1)
redis.call('HSETNX', KEYS[1], 'h', ARGV[3])
touch()
return 1`;

/**
 * Process `ARGV[3]` still holds the session (its periodic refresh): the TTL again, and the holder
 * set back if Redis lost it. Returns 0 when another process holds it now, else `{ 1, outbox }`:
 * with `ARGV[4]` = `'1'` the outbox as `HELLO` gives it (for a holder that may have missed being
 * told of a message), else empty.
 */
export const HOLD = `${COMMON}
local holder = redis.call('HGET', KEYS[1], 'h')
if holder and holder ~= ARGV[3] then return 0 end
epoch()
redis.call('HSET', KEYS[1], 'h', ARGV[3])
local out = {}
if ARGV[4] == '1' then out = outbox() end
touch()
return { 1, out }`;

/**
 * Process `ARGV[3]` lost the session's connection: it holds it no longer (unless another took it
 * meanwhile), and the session lives `sessionTtl` from now. Returns 1.
 */
export const RELEASE = `${COMMON}
if redis.call('HGET', KEYS[1], 'h') == ARGV[3] then redis.call('HDEL', KEYS[1], 'h') end
if redis.call('EXISTS', KEYS[1]) == 1 then touch() end
return 1`;
