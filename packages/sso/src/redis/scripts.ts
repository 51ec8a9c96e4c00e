/**
 * The Lua scripts of the Redis SSO store. Each touches the keys of one hash tag (one Cluster
 * slot), so each runs atomically on standalone Redis and on Cluster alike.
 * @module
 */
import { script } from "@portcullis/redis-adapter/scripts"

// The runner (EVALSHA, EVAL on NOSCRIPT) is the Redis adapter's, shared by every extension store.
export { runScript as run, type Script } from "@portcullis/redis-adapter/scripts"

/** KEYS: organizationId, json. ARGV: organization id, json. Replaces the connection only if that organization's. */
export const UPDATE_CONNECTION = script(`
if redis.call("HGET", KEYS[1], "organizationId") ~= ARGV[1] then return 0 end
redis.call("HSET", KEYS[1], "json", ARGV[2])
return 1
`)

/** KEYS: claim. ARGV: connection id. Unlinks the claim from the connection if routed to it. */
export const UNLINK_DOMAIN = script(`
if redis.call("HGET", KEYS[1], "connectionId") ~= ARGV[1] then return 0 end
redis.call("HSET", KEYS[1], "connectionId", "")
return 1
`)

/**
 * KEYS: claim, verified. ARGV: organization id, token, verifiedAt, requireSso, connectionId, createdAt.
 * "taken" when another organization verified the domain; else the claim is kept (a first one stays as it is).
 */
export const CLAIM_DOMAIN = script(`
local holder = redis.call("GET", KEYS[2])
if holder and holder ~= ARGV[1] then return "taken" end
if redis.call("EXISTS", KEYS[1]) == 0 then
  redis.call("HSET", KEYS[1], "token", ARGV[2], "verifiedAt", ARGV[3], "requireSso", ARGV[4], "connectionId", ARGV[5], "createdAt", ARGV[6])
end
return "claimed"
`)

/** KEYS: claim, verified. ARGV: organization id, at (ms). The check of the holder and the mark in one step. */
export const VERIFY_DOMAIN = script(`
if redis.call("EXISTS", KEYS[1]) == 0 then return "missing" end
local holder = redis.call("GET", KEYS[2])
if holder and holder ~= ARGV[1] then return "taken" end
redis.call("SET", KEYS[2], ARGV[1])
if redis.call("HGET", KEYS[1], "verifiedAt") == "" then redis.call("HSET", KEYS[1], "verifiedAt", ARGV[2]) end
return "verified"
`)

/** KEYS: claim. ARGV: "1" to set requireSso, its value, "1" to set connectionId, its value. 0 when there is no claim. */
export const UPDATE_DOMAIN = script(`
if redis.call("EXISTS", KEYS[1]) == 0 then return 0 end
if ARGV[1] == "1" then redis.call("HSET", KEYS[1], "requireSso", ARGV[2]) end
if ARGV[3] == "1" then redis.call("HSET", KEYS[1], "connectionId", ARGV[4]) end
return 1
`)

/** KEYS: claim, verified. ARGV: organization id. Removes the claim, and the verified mark if it is this organization's. */
export const REMOVE_DOMAIN = script(`
redis.call("DEL", KEYS[1])
if redis.call("GET", KEYS[2]) == ARGV[1] then redis.call("DEL", KEYS[2]) end
return 1
`)

/** KEYS: token. ARGV: at (ms). Records a use of a token that still exists. */
export const TOUCH_TOKEN = script(`
if redis.call("EXISTS", KEYS[1]) == 0 then return 0 end
redis.call("HSET", KEYS[1], "lastUsedAt", ARGV[1])
return 1
`)

/**
 * KEYS: resource, ids set, names hash. ARGV: id, name key, json, version, and — for a group —
 * its members (JSON). 0 when the id or the name is taken; the name index is what keeps a name single.
 */
export const CREATE_RESOURCE = script(`
if redis.call("EXISTS", KEYS[1]) == 1 or redis.call("HEXISTS", KEYS[3], ARGV[2]) == 1 then return 0 end
redis.call("HSET", KEYS[1], "json", ARGV[3], "version", ARGV[4], "name", ARGV[2])
if ARGV[5] then redis.call("HSET", KEYS[1], "members", ARGV[5]) end
redis.call("SADD", KEYS[2], ARGV[1])
redis.call("HSET", KEYS[3], ARGV[2], ARGV[1])
return 1
`)

/**
 * KEYS: resource, names hash. ARGV: id, name key, json, expected version ("" for any), and —
 * for a group — its members (JSON).
 * The version compared and bumped, and the name moved, in one step: returns the new
 * version, "conflict" (another version, or the name is another's), or "missing".
 */
export const UPDATE_RESOURCE = script(`
if redis.call("EXISTS", KEYS[1]) == 0 then return "missing" end
local version = tonumber(redis.call("HGET", KEYS[1], "version"))
if ARGV[4] ~= "" and version ~= tonumber(ARGV[4]) then return "conflict" end
local holder = redis.call("HGET", KEYS[2], ARGV[2])
if holder and holder ~= ARGV[1] then return "conflict" end
local previous = redis.call("HGET", KEYS[1], "name")
if previous and previous ~= ARGV[2] then redis.call("HDEL", KEYS[2], previous) end
redis.call("HSET", KEYS[2], ARGV[2], ARGV[1])
redis.call("HSET", KEYS[1], "json", ARGV[3], "version", version + 1, "name", ARGV[2])
if ARGV[5] then redis.call("HSET", KEYS[1], "members", ARGV[5]) end
return tostring(version + 1)
`)

/**
 * KEYS: resource, ids set, names hash. ARGV: id, and — for a user — the groups set key and
 * the group key prefix, to take the user out of every group of the organization (one slot).
 * 1 when it existed.
 */
export const DELETE_RESOURCE = script(`
if redis.call("EXISTS", KEYS[1]) == 0 then return 0 end
local name = redis.call("HGET", KEYS[1], "name")
if name and redis.call("HGET", KEYS[3], name) == ARGV[1] then redis.call("HDEL", KEYS[3], name) end
redis.call("DEL", KEYS[1])
redis.call("SREM", KEYS[2], ARGV[1])
if ARGV[2] then
  for _, groupId in ipairs(redis.call("SMEMBERS", ARGV[2])) do
    local key = ARGV[3] .. groupId
    local encoded = redis.call("HGET", key, "members")
    if encoded then
      local kept, removed = {}, false
      for _, member in ipairs(cjson.decode(encoded)) do
        if member == ARGV[1] then removed = true else kept[#kept + 1] = member end
      end
      if removed then
        -- cjson writes an empty table as {}: an empty member list is written by hand.
        redis.call("HSET", key, "members", #kept == 0 and "[]" or cjson.encode(kept))
        redis.call("HINCRBY", key, "version", 1)
      end
    end
  end
end
return 1
`)

/**
 * KEYS: session. ARGV: user id, organization id. Marks the session ended if it is that
 * user's in that organization and was not already: 1 then, else 0.
 */
export const END_SESSION = script(`
local fields = redis.call("HMGET", KEYS[1], "userId", "organizationId", "ended")
if fields[1] ~= ARGV[1] or fields[2] ~= ARGV[2] or fields[3] ~= "0" then return 0 end
redis.call("HSET", KEYS[1], "ended", "1")
return 1
`)

/** KEYS: a key. ARGV: ttl (ms). Lengthens the key's life to the ttl, never shortens it. */
export const EXTEND_TTL = script(`
local current = redis.call("PTTL", KEYS[1])
if current >= 0 and current >= tonumber(ARGV[1]) then return 0 end
redis.call("PEXPIRE", KEYS[1], ARGV[1])
return 1
`)
