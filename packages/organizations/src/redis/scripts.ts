/**
 * The Lua scripts of the Redis organization store. Each touches the keys of one
 * organization only (one hash tag, one Cluster slot), or one index key, so each runs
 * atomically on standalone Redis and on Cluster alike.
 * @module
 */
import { script } from "@portcullis/redis-adapter/scripts"

// The runner (EVALSHA, EVAL on NOSCRIPT) is the Redis adapter's, shared by every extension store.
export { runScript as run, type Script } from "@portcullis/redis-adapter/scripts"

/** KEYS: info, roles, since, owners. ARGV: id, name, slug, metadata, createdAt, owner, owner's since. 0 when the id exists. */
export const CREATE = script(`
if redis.call("EXISTS", KEYS[1]) == 1 then return 0 end
redis.call("HSET", KEYS[1], "id", ARGV[1], "name", ARGV[2], "slug", ARGV[3], "metadata", ARGV[4], "createdAt", ARGV[5])
redis.call("HSET", KEYS[2], ARGV[6], "owner")
redis.call("HSET", KEYS[3], ARGV[6], ARGV[7])
redis.call("SADD", KEYS[4], ARGV[6])
return 1
`)

/**
 * KEYS: info. ARGV: name, slug, metadata, each preceded by "1" to set it or "0" to keep it.
 * Returns the slug before the change, or nil when there is no such organization.
 */
export const UPDATE = script(`
if redis.call("EXISTS", KEYS[1]) == 0 then return false end
local previous = redis.call("HGET", KEYS[1], "slug")
if ARGV[1] == "1" then redis.call("HSET", KEYS[1], "name", ARGV[2]) end
if ARGV[3] == "1" then redis.call("HSET", KEYS[1], "slug", ARGV[4]) end
if ARGV[5] == "1" then redis.call("HSET", KEYS[1], "metadata", ARGV[6]) end
return previous
`)

/**
 * KEYS: info, roles, since, owners, invitations. ARGV: the invitation key prefix.
 * Deletes the organization's keys (invitation keys share its hash tag, so its slot).
 * Returns { slug, member ids, invitation ids } for the index clean-up, or nil.
 */
export const DELETE = script(`
if redis.call("EXISTS", KEYS[1]) == 0 then return false end
local slug = redis.call("HGET", KEYS[1], "slug")
local users = redis.call("HKEYS", KEYS[2])
local invitations = redis.call("SMEMBERS", KEYS[5])
for _, id in ipairs(invitations) do redis.call("DEL", ARGV[1] .. id) end
redis.call("DEL", KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5])
return { slug, users, invitations }
`)

/**
 * KEYS: roles, since, owners. ARGV: user id, "1" to remove or "0" to set, the new role, the
 * role the caller checked ("" for any). The last-owner guard, the check that the role is
 * still the one the caller saw, and the change in one step: the owners set is counted where
 * it is changed.
 */
export const CHANGE_MEMBER = script(`
local current = redis.call("HGET", KEYS[1], ARGV[1])
if not current then return "missing" end
if ARGV[4] ~= "" and current ~= ARGV[4] then return "changed" end
local removing = ARGV[2] == "1"
if current == "owner" and (removing or ARGV[3] ~= "owner") and redis.call("SCARD", KEYS[3]) <= 1 then return "last-owner" end
if removing then
  redis.call("HDEL", KEYS[1], ARGV[1])
  redis.call("HDEL", KEYS[2], ARGV[1])
  redis.call("SREM", KEYS[3], ARGV[1])
else
  redis.call("HSET", KEYS[1], ARGV[1], ARGV[3])
  if ARGV[3] == "owner" then redis.call("SADD", KEYS[3], ARGV[1]) else redis.call("SREM", KEYS[3], ARGV[1]) end
end
return "ok"
`)

/**
 * KEYS: info, invitations, invitation. ARGV: id, organizationId, email, role, invitedBy,
 * tokenHash, status, expiresAt, createdAt, acceptedBy. 0 when the organization does not exist.
 */
export const INVITE = script(`
if redis.call("EXISTS", KEYS[1]) == 0 then return 0 end
redis.call("HSET", KEYS[3], "id", ARGV[1], "organizationId", ARGV[2], "email", ARGV[3], "role", ARGV[4], "invitedBy", ARGV[5],
  "tokenHash", ARGV[6], "status", ARGV[7], "expiresAt", ARGV[8], "createdAt", ARGV[9], "acceptedBy", ARGV[10])
redis.call("SADD", KEYS[2], ARGV[1])
return 1
`)

/** KEYS: invitation. 1 when it was pending and is now revoked. */
export const REVOKE = script(`
if redis.call("HGET", KEYS[1], "status") ~= "pending" then return 0 end
redis.call("HSET", KEYS[1], "status", "revoked")
return 1
`)

/**
 * KEYS: invitation, roles, since, owners. ARGV: user id, now (ms).
 * The single use: the status is checked and changed in the step that adds the member.
 */
export const ACCEPT = script(`
local status = redis.call("HGET", KEYS[1], "status")
if not status then return "missing" end
if status ~= "pending" or tonumber(redis.call("HGET", KEYS[1], "expiresAt")) <= tonumber(ARGV[2]) then return "unavailable" end
redis.call("HSET", KEYS[1], "status", "accepted", "acceptedBy", ARGV[1])
if redis.call("HEXISTS", KEYS[2], ARGV[1]) == 1 then return "already-member" end
local role = redis.call("HGET", KEYS[1], "role")
redis.call("HSET", KEYS[2], ARGV[1], role)
redis.call("HSET", KEYS[3], ARGV[1], ARGV[2])
if role == "owner" then redis.call("SADD", KEYS[4], ARGV[1]) end
return "accepted"
`)

/**
 * KEYS: info, roles, since, owners. ARGV: user id, role, since (ms), limit ("" for none).
 * The organization's existence, the membership and the count checked where the member is added.
 */
export const ADD_MEMBER = script(`
if redis.call("EXISTS", KEYS[1]) == 0 then return "missing" end
if redis.call("HEXISTS", KEYS[2], ARGV[1]) == 1 then return "already-member" end
if ARGV[4] ~= "" and redis.call("HLEN", KEYS[2]) >= tonumber(ARGV[4]) then return "full" end
redis.call("HSET", KEYS[2], ARGV[1], ARGV[2])
redis.call("HSET", KEYS[3], ARGV[1], ARGV[3])
if ARGV[2] == "owner" then redis.call("SADD", KEYS[4], ARGV[1]) end
return "added"
`)

/** KEYS: slug. ARGV: the claim read, the new claim. Replaces a stale claim only if it is still the one read. */
export const TAKE_OVER_SLUG = script(`
if redis.call("GET", KEYS[1]) ~= ARGV[1] then return 0 end
redis.call("SET", KEYS[1], ARGV[2])
return 1
`)

/** KEYS: slug. ARGV: organization id. Deletes the claim only if that organization holds it. */
export const RELEASE_SLUG = script(`
local claim = redis.call("GET", KEYS[1])
if not claim then return 0 end
local ok, decoded = pcall(cjson.decode, claim)
if not ok or type(decoded) ~= "table" or decoded.id ~= ARGV[1] then return 0 end
redis.call("DEL", KEYS[1])
return 1
`)
