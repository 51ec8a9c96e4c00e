/**
 * The Lua scripts of the Redis OpenID Provider store. Each runs atomically; each touches keys
 * of one hash tag only (see `keys.ts`), so it runs on Redis Cluster as on a single server.
 * Some reach keys they read from another key (a code's grant, a user's grants): those are
 * under the same tag, so in the same slot as the keys the script was routed by.
 * @module
 */
import { script } from "@portcullis/redis-adapter/scripts"

// The runner (EVALSHA, EVAL on NOSCRIPT) is the Redis adapter's, shared by every extension store.
export { runScript as run, type Script } from "@portcullis/redis-adapter/scripts"

/** Lengthens a key's life to `ttl` ms, never shortens it (an index lives as long as its longest member). */
const EXTEND = `
local function extend(key, ttl)
  local current = redis.call("PTTL", key)
  if current < 0 or current < ttl then redis.call("PEXPIRE", key, ttl) end
end
`

/**
 * Revokes (deletes) the grants whose keys are in the set `index` and whose client is `clientId`
 * ("" for any); drops members whose grant is gone; returns how many were active.
 */
const REVOKE_IN = `
local function revoke_in(index, clientId)
  local n = 0
  for _, key in ipairs(redis.call("SMEMBERS", index)) do
    local client = redis.call("HGET", key, "clientId")
    if not client then
      redis.call("SREM", index, key)
    elseif clientId == "" or client == clientId then
      redis.call("DEL", key)
      redis.call("SREM", index, key)
      n = n + 1
    end
  end
  return n
end
`

/**
 * KEYS: grant, user index, session index. ARGV: json, clientId, userId ("" none), sessionKey
 * ("" none), ttl (ms). The grant and its index entries in one step.
 */
export const CREATE_GRANT = script(`${EXTEND}
redis.call("HSET", KEYS[1], "json", ARGV[1], "clientId", ARGV[2], "userId", ARGV[3], "sessionKey", ARGV[4])
local ttl = tonumber(ARGV[5])
redis.call("PEXPIRE", KEYS[1], ttl)
if ARGV[3] ~= "" then redis.call("SADD", KEYS[2], KEYS[1]); extend(KEYS[2], ttl) end
if ARGV[4] ~= "" then redis.call("SADD", KEYS[3], KEYS[1]); extend(KEYS[3], ttl) end
return 1
`)

/** KEYS: an index of grants. ARGV: clientId ("" any). The JSON of each live grant; stale members dropped. */
export const LIST_GRANTS = script(`
local out = {}
for _, key in ipairs(redis.call("SMEMBERS", KEYS[1])) do
  local fields = redis.call("HMGET", key, "json", "clientId")
  if not fields[1] then
    redis.call("SREM", KEYS[1], key)
  elseif ARGV[1] == "" or fields[2] == ARGV[1] then
    out[#out + 1] = fields[1]
  end
end
return out
`)

/** KEYS: an index of grants. ARGV: clientId ("" any). Revokes them; how many were active. */
export const REVOKE_GRANTS = script(`${REVOKE_IN}
return revoke_in(KEYS[1], ARGV[1])
`)

/**
 * KEYS: code. Redeems it once: {"taken", json}, then {"replayed", json}; {"missing"} when the
 * code is gone (expired) or its grant is (revoked, expired).
 */
export const TAKE_CODE = script(`
local f = redis.call("HMGET", KEYS[1], "json", "grantKey", "used")
if not f[1] then return {"missing"} end
if redis.call("EXISTS", f[2]) == 0 then return {"missing"} end
if f[3] == "1" then return {"replayed", f[1]} end
redis.call("HSET", KEYS[1], "used", "1")
return {"taken", f[1]}
`)

/**
 * KEYS: token, next token. ARGV: next json, next grant key, next ttl (ms).
 * A current token of a live grant → {"rotated", json} and `next` saved; a rotated one →
 * {"reused", json} and its grant deleted, which ends every token of the family; else {"missing"}.
 */
export const ROTATE_REFRESH = script(`
local f = redis.call("HMGET", KEYS[1], "json", "grantKey", "rotated")
if not f[1] then return {"missing"} end
if redis.call("EXISTS", f[2]) == 0 then return {"missing"} end
if f[3] == "1" then
  redis.call("DEL", f[2])
  return {"reused", f[1]}
end
redis.call("HSET", KEYS[1], "rotated", "1")
redis.call("HSET", KEYS[2], "json", ARGV[1], "grantKey", ARGV[2], "rotated", "0")
redis.call("PEXPIRE", KEYS[2], tonumber(ARGV[3]))
return {"rotated", f[1]}
`)

/** KEYS: token. Its JSON when current (not rotated, grant live), else nil. */
export const GET_REFRESH = script(`
local f = redis.call("HMGET", KEYS[1], "json", "grantKey", "rotated")
if not f[1] or f[3] ~= "0" or redis.call("EXISTS", f[2]) == 0 then return false end
return f[1]
`)

/**
 * KEYS: consent, the user's consent index. ARGV: clientId, scope, resources (JSON), createdAt,
 * updatedAt (ms). Adds the scopes and resources to what is there (a union), in one step.
 */
export const SAVE_CONSENT = script(`
local current = redis.call("HMGET", KEYS[1], "scope", "resources")
local words, seen = {}, {}
for word in string.gmatch((current[1] or "") .. " " .. ARGV[2], "%S+") do
  if not seen[word] then seen[word] = true; words[#words + 1] = word end
end
local resources, known = {}, {}
for _, list in ipairs({ cjson.decode(current[2] or "[]"), cjson.decode(ARGV[3]) }) do
  for _, resource in ipairs(list) do
    if not known[resource] then known[resource] = true; resources[#resources + 1] = resource end
  end
end
if not current[1] then redis.call("HSET", KEYS[1], "createdAt", ARGV[4]) end
-- cjson writes an empty table as {}: an empty list is written by hand.
redis.call("HSET", KEYS[1], "scope", table.concat(words, " "), "resources", #resources == 0 and "[]" or cjson.encode(resources), "updatedAt", ARGV[5])
redis.call("SADD", KEYS[2], ARGV[1])
return 1
`)

/** KEYS: consent, the user's consent index, the user's grant index. ARGV: clientId. Forgets the consent and revokes the grants; 1 when there was a consent. */
export const REVOKE_CONSENT = script(`${REVOKE_IN}
local existed = redis.call("DEL", KEYS[1])
redis.call("SREM", KEYS[2], ARGV[1])
revoke_in(KEYS[3], ARGV[1])
return existed
`)

/**
 * KEYS: device, user code. ARGV: json, status, interval, lastPolledAt, userId, authTime,
 * grantId, expiresAt (ms or ""), ttl (ms). An error when the user code is taken.
 */
export const CREATE_DEVICE = script(`
if redis.call("EXISTS", KEYS[2]) == 1 then return redis.error_reply("user code in use") end
redis.call("HSET", KEYS[1], "json", ARGV[1], "status", ARGV[2], "interval", ARGV[3], "lastPolledAt", ARGV[4],
  "userId", ARGV[5], "authTime", ARGV[6], "grantId", ARGV[7], "expiresAt", ARGV[8], "handedOut", "0")
redis.call("PEXPIRE", KEYS[1], tonumber(ARGV[9]))
redis.call("SET", KEYS[2], KEYS[1], "PX", tonumber(ARGV[9]))
return 1
`)

/** KEYS: user code. ARGV: now (ms). The device's fields (flat) when pending and unexpired, else nil. */
export const FIND_DEVICE = script(`
local key = redis.call("GET", KEYS[1])
if not key then return false end
local f = redis.call("HMGET", key, "status", "expiresAt")
if f[1] ~= "pending" or tonumber(f[2]) <= tonumber(ARGV[1]) then return false end
return redis.call("HGETALL", key)
`)

/** KEYS: user code. ARGV: status, userId, authTime, grantId, now (ms). Decides a pending request once: 1, else 0. */
export const DECIDE_DEVICE = script(`
local key = redis.call("GET", KEYS[1])
if not key then return 0 end
local f = redis.call("HMGET", key, "status", "expiresAt")
if f[1] ~= "pending" or tonumber(f[2]) <= tonumber(ARGV[5]) then return 0 end
redis.call("HSET", key, "status", ARGV[1], "userId", ARGV[2], "authTime", ARGV[3], "grantId", ARGV[4])
return 1
`)

/**
 * KEYS: device. ARGV: now (ms). {"approved", fields…} once, {"denied"}, {"slow_down"} (the
 * interval grows by 5 s), {"pending"}, or {"missing"} (unknown, expired, handed out).
 */
export const POLL_DEVICE = script(`
local now = tonumber(ARGV[1])
local f = redis.call("HMGET", KEYS[1], "status", "expiresAt", "handedOut", "interval", "lastPolledAt")
if not f[1] or f[3] == "1" or tonumber(f[2]) <= now then return {"missing"} end
if f[1] == "approved" then
  redis.call("HSET", KEYS[1], "handedOut", "1", "lastPolledAt", ARGV[1])
  local out = redis.call("HGETALL", KEYS[1])
  table.insert(out, 1, "approved")
  return out
end
if f[1] == "denied" then return {"denied"} end
local interval = tonumber(f[4])
if f[5] ~= "" and now - tonumber(f[5]) < interval * 1000 then
  redis.call("HSET", KEYS[1], "interval", interval + 5, "lastPolledAt", ARGV[1])
  return {"slow_down"}
end
redis.call("HSET", KEYS[1], "lastPolledAt", ARGV[1])
return {"pending"}
`)

/** KEYS: client, dynamic index. ARGV: json, dynamic (0/1). An error when the id is taken. */
export const CREATE_CLIENT = script(`
if redis.call("EXISTS", KEYS[1]) == 1 then return redis.error_reply("client id in use") end
redis.call("HSET", KEYS[1], "json", ARGV[1], "dynamic", ARGV[2])
if ARGV[2] == "1" then redis.call("SADD", KEYS[2], KEYS[1]) end
return 1
`)

/** KEYS: client, dynamic index. 1 when it existed. */
export const DELETE_CLIENT = script(`
redis.call("SREM", KEYS[2], KEYS[1])
return redis.call("DEL", KEYS[1])
`)

/** KEYS: key, kid index. ARGV: json, retiredAt, expiresAt (ms or ""). An error when the kid is taken. */
export const ADD_SIGNING_KEY = script(`
if redis.call("EXISTS", KEYS[1]) == 1 then return redis.error_reply("kid in use") end
redis.call("HSET", KEYS[1], "json", ARGV[1], "retiredAt", ARGV[2], "expiresAt", ARGV[3])
redis.call("SADD", KEYS[2], KEYS[1])
-- A key with an end leaves with it (an end already past: at once).
if ARGV[3] ~= "" then redis.call("PEXPIREAT", KEYS[1], tonumber(ARGV[3])) end
return 1
`)

/**
 * KEYS: key, kid index. ARGV: "1" to set retiredAt, its value, "1" to set expiresAt, its
 * value, now (ms). A key whose expiresAt passed leaves the JWKS, so its record expires then too.
 */
export const UPDATE_SIGNING_KEY = script(`
if redis.call("EXISTS", KEYS[1]) == 0 then return 0 end
if ARGV[1] == "1" then redis.call("HSET", KEYS[1], "retiredAt", ARGV[2]) end
if ARGV[3] == "1" then
  redis.call("HSET", KEYS[1], "expiresAt", ARGV[4])
  if tonumber(ARGV[4]) <= tonumber(ARGV[5]) then
    redis.call("DEL", KEYS[1])
    redis.call("SREM", KEYS[2], KEYS[1])
  else
    redis.call("PEXPIREAT", KEYS[1], tonumber(ARGV[4]))
  end
end
return 1
`)

/** KEYS: kid index. The fields of every live key (flat arrays); stale members dropped. */
export const LIST_SIGNING_KEYS = script(`
local out = {}
for _, key in ipairs(redis.call("SMEMBERS", KEYS[1])) do
  local fields = redis.call("HMGET", key, "json", "retiredAt", "expiresAt")
  if not fields[1] then redis.call("SREM", KEYS[1], key) else out[#out + 1] = fields end
end
return out
`)
