/**
 * The Redis adapter: records as JSON strings, secondary keys for the lookups, and Redis
 * expiry for sessions and verification tokens.
 * @module
 */
import type {
  Adapter,
  AdapterAccount,
  AdapterAuthenticator,
  AdapterSession,
  AdapterTwoFactor,
  AdapterUser,
} from "@portcullis/core/adapters"
import { decode, decodeSession, decodeUser, decodeVerificationToken, encode } from "./json.js"
import { redisKeys } from "./keys.js"
import { isCluster, redisClientProblems, type RedisClient } from "./client.js"
import { globLiteral, scanKeys } from "./scan.js"
import { redisAuditTrail } from "./audit.js"
import { consoleStoreLogger, type StoreLogger } from "@portcullis/core/store-log"

/** Options of {@link RedisAdapter}. */
export interface RedisAdapterOptions {
  /**
   * Prefix of every key. Default `portcullis:`, and `{portcullis}:` on a Redis Cluster.
   * On a cluster it must hold a hash tag (`{...}`): the adapter's transactions and scripts
   * join keys of one user, session or account with keys of another kind, so every key
   * shares one slot (docs/deploy.md, "Scaling out: Redis Cluster").
   */
  prefix?: string
  /**
   * Where the adapter's advice goes: a warning, once, when the client lacks what it needs
   * to survive an outage (an `error` listener, a `commandTimeout`). Default: stderr.
   */
  logger?: StoreLogger
  /**
   * After each single-use take (a verification token, a TOTP step, a backup code) and each
   * session deletion, wait until this many replicas have the write (`WAIT`), and fail the
   * call with {@link RedisReplicationError} when they do not within `timeoutMs`. Off by
   * default: Redis replicates asynchronously, so a master that dies right after a write
   * can take it with it, and its promoted replica accepts the same token once more (or
   * knows a signed-out session again). With `{ replicas: 1 }` on a cluster of one replica
   * per master, a take the caller was told about survives the failover; a take that failed
   * may or may not have happened, and the token stays usable if it did not. Costs one
   * replication round trip per take, and one more connection (per node) that WAIT may hold
   * without stalling other commands (docs/deploy.md, "Scaling out: Redis Cluster").
   */
  waitForReplicas?: { replicas: number; timeoutMs: number }
}

/**
 * A write the adapter made was not confirmed by `waitForReplicas` replicas in time: it
 * may be lost in a failover, so the caller is not told it succeeded.
 */
export class RedisReplicationError extends Error {
  readonly code = "redis-replication-timeout"
  constructor(readonly acknowledged: number, readonly wanted: number) {
    super(`Redis: the write reached ${acknowledged} of ${wanted} replicas in time`)
    this.name = "RedisReplicationError"
  }
}

/**
 * Reads a session and its user in one round trip. The user key is derived inside the
 * script from the session's `userId`; ARGV[1] is the full user-key prefix.
 */
const SESSION_AND_USER_SCRIPT = `
local session = redis.call("GET", KEYS[1])
if not session then return nil end
local userId = cjson.decode(session).userId
return { session, redis.call("GET", ARGV[1] .. userId) }
`

/** Deletes KEYS[1] only while it still holds ARGV[1] (its owner): a late holder frees nothing. */
export const RELEASE_SCRIPT = `
if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end
return 0
`

/**
 * Updates the account JSON at KEYS[1] with the patch ARGV[1] (null fields removed), only if
 * its refresh_token equals ARGV[3] when ARGV[2] is "1" (compare-and-set). One script, so no
 * other writer runs between the compare and the write. Returns the new JSON, or nil.
 */
const UPDATE_ACCOUNT_SCRIPT = `
local current = redis.call("GET", KEYS[1])
if not current then return nil end
local account = cjson.decode(current)
if ARGV[2] == "1" then
  local stored = account.refresh_token
  if stored == nil or stored == cjson.null then stored = "" end
  if stored ~= ARGV[3] then return nil end
end
local patch = cjson.decode(ARGV[1])
for field, value in pairs(patch) do
  if value == cjson.null then account[field] = nil else account[field] = value end
end
local encoded = cjson.encode(account)
redis.call("SET", KEYS[1], encoded)
return encoded
`

/** Sets the password hash KEYS[2] to ARGV[1] only while the user KEYS[1] exists; 1 when written. */
/** Sets an authenticator's `name` in its JSON, in place (its TTL, none, kept); nothing for an unknown id. */
const RENAME_AUTHENTICATOR_SCRIPT = `
local json = redis.call("GET", KEYS[1])
if not json then return 0 end
local record = cjson.decode(json)
record.name = ARGV[1]
redis.call("SET", KEYS[1], cjson.encode(record), "KEEPTTL")
return 1
`

const SET_PASSWORD_SCRIPT = `
if redis.call("EXISTS", KEYS[1]) == 0 then return 0 end
redis.call("SET", KEYS[2], ARGV[1])
return 1
`

/**
 * Records TOTP step ARGV[1] as used in the two-factor hash KEYS[1], only when it is after
 * the stored one (or none is stored) and the record exists; 1 when written. One script, so
 * of concurrent callers with one step exactly one gets 1.
 */
const USE_TWO_FACTOR_STEP_SCRIPT = `
if redis.call("EXISTS", KEYS[1]) == 0 then return 0 end
local last = redis.call("HGET", KEYS[1], "lastUsedStep")
if last and last ~= "" and tonumber(ARGV[1]) <= tonumber(last) then return 0 end
redis.call("HSET", KEYS[1], "lastUsedStep", ARGV[1])
return 1
`

/**
 * Replaces the two-factor hash KEYS[2] and backup-code list KEYS[3] of the user KEYS[1],
 * only while the user exists (so a record cannot outlive a deleteUser running at the same
 * moment, as the SQL foreign key ensures); 1 when written. ARGV: secret, enabled, last
 * used step, then the backup code hashes.
 */
const SET_TWO_FACTOR_SCRIPT = `
if redis.call("EXISTS", KEYS[1]) == 0 then return 0 end
redis.call("DEL", KEYS[2], KEYS[3])
redis.call("HSET", KEYS[2], "secret", ARGV[1], "enabled", ARGV[2], "lastUsedStep", ARGV[3])
if #ARGV > 3 then redis.call("RPUSH", KEYS[3], unpack(ARGV, 4)) end
return 1
`

/**
 * Creates an adapter on an ioredis client. Needs Redis 6.2 or later (GETDEL, SET PXAT).
 *
 * Sessions and verification tokens expire in Redis at their `expires`. Absent optional
 * fields stay absent (JSON keeps what it was given).
 *
 * @example
 * ```ts
 * import { createRedisClient, RedisAdapter } from "@portcullis/redis-adapter"
 *
 * const redis = createRedisClient(process.env.REDIS_URL!) // timeouts, reconnects, logged errors
 * export const config = { adapter: RedisAdapter(redis, { prefix: "myapp:auth:" }), providers: [] }
 * ```
 *
 * With a client you construct yourself, add its `error` listener before calling this:
 * the adapter warns once when the client has none, or no `commandTimeout`.
 */
export function RedisAdapter(client: RedisClient, options: RedisAdapterOptions = {}): Adapter {
  const wait = options.waitForReplicas
  if (wait && !(Number.isInteger(wait.replicas) && wait.replicas >= 1 && Number.isInteger(wait.timeoutMs) && wait.timeoutMs >= 1)) {
    // WAIT with a timeout of 0 blocks forever: a dead replica would hang every take.
    throw new TypeError("RedisAdapter: waitForReplicas needs replicas ≥ 1 and timeoutMs ≥ 1 (whole numbers)")
  }
  const k = redisKeys(adapterPrefix(client, options.prefix))
  const problems = redisClientProblems(client)
  if (problems.length) {
    ;(options.logger ?? consoleStoreLogger).warn(
      `RedisAdapter: the ioredis client will not survive a Redis outage well: ${problems.join("; ")}. ` +
        "Create it with createRedisClient() (docs/reliability.md).",
    )
  }
  // ioredis adds its own `keyPrefix` to KEYS but not to script arguments; the script
  // builds a key from ARGV, so it must be given the client's prefix too.
  const userKeyPrefix = (client.options.keyPrefix ?? "") + k.user("")
  const replicated = options.waitForReplicas
  const durableClient = replicated ? companion(client) : client

  /**
   * Runs one keyed command, then (with `waitForReplicas`) WAIT in the same pipeline, so it
   * reaches the node that took the write (on a cluster, the key's master).
   */
  async function durably<T>(command: (pipeline: ReturnType<RedisClient["pipeline"]>) => unknown, retried = false): Promise<T> {
    const pipeline = durableClient.pipeline()
    command(pipeline)
    if (replicated) pipeline.wait(replicated.replicas, replicated.timeoutMs)
    const replies = (await pipeline.exec()) ?? []
    const moved = replies[0]?.[0]
    if (moved && /^(MOVED|ASK) /.test(moved.message) && isCluster(durableClient) && !retried) {
      // ioredis follows a redirection itself only when every command of a pipeline got
      // one; here WAIT answered, so the slot map is refreshed by hand. A redirected
      // command did not run: sending it again takes nothing twice.
      await new Promise<void>((resolve) => durableClient.refreshSlotsCache(() => resolve()))
      return durably(command, true)
    }
    for (const [error] of replies) if (error) throw error
    if (replicated) {
      const acknowledged = Number(replies[1]![1])
      if (acknowledged < replicated.replicas) throw new RedisReplicationError(acknowledged, replicated.replicas)
    }
    return replies[0]![1] as T
  }

  async function getUser(id: string): Promise<AdapterUser | null> {
    return decodeUser(await client.get(k.user(id)))
  }

  async function getAccount(provider: string, providerAccountId: string): Promise<AdapterAccount | null> {
    return decode<AdapterAccount>(await client.get(k.account(provider, providerAccountId)))
  }

  async function getAuthenticator(credentialID: string): Promise<AdapterAuthenticator | null> {
    return decode<AdapterAuthenticator>(await client.get(k.authenticator(credentialID)))
  }

  /** Claims `email` for `userId`; throws when another user holds it (the unique-email rule). */
  async function claimEmail(email: string, userId: string): Promise<void> {
    const claimed = await client.set(k.userByEmail(email), userId, "NX")
    if (!claimed && (await client.get(k.userByEmail(email))) !== userId) {
      throw new Error(`a user with email ${email} already exists`)
    }
  }

  return {
    async createUser(user) {
      await claimEmail(user.email, user.id)
      await client.set(k.user(user.id), encode(user))
      return user
    },
    getUser,
    async getUserByEmail(email) {
      const id = await client.get(k.userByEmail(email))
      return id ? getUser(id) : null
    },
    async getUserByAccount({ provider, providerAccountId }) {
      const account = await getAccount(provider, providerAccountId)
      return account ? getUser(account.userId) : null
    },
    async updateUser(patch) {
      const user = await getUser(patch.id)
      if (!user) throw new Error(`no user with id ${patch.id}`)
      const merged: AdapterUser = { ...user, ...patch }
      const emailChanged = merged.email !== user.email
      if (emailChanged) await claimEmail(merged.email, user.id)
      const multi = client.multi().set(k.user(user.id), encode(merged))
      if (emailChanged) multi.del(k.userByEmail(user.email))
      await multi.exec()
      return merged
    },
    async deleteUser(userId) {
      const [user, accountKeys, sessionTokens, credentialIDs] = await Promise.all([
        getUser(userId),
        client.smembers(k.userAccounts(userId)),
        client.zrange(k.userSessions(userId), 0, "-1"),
        client.smembers(k.userAuthenticators(userId)),
      ])
      const doomed = [
        k.user(userId), k.userAccounts(userId), k.userSessions(userId), k.userAuthenticators(userId), k.userPassword(userId),
        k.twoFactor(userId), k.twoFactorCodes(userId),
        ...accountKeys,
        ...sessionTokens.map(k.session),
        ...credentialIDs.map(k.authenticator),
      ]
      if (user) doomed.push(k.userByEmail(user.email))
      // A multi-key DEL is atomic, like a MULTI: no reader sees the user half-deleted.
      await client.del(...doomed)
      return user
    },

    async linkAccount(account) {
      const key = k.account(account.provider, account.providerAccountId)
      // NX: like the SQL unique index, a provider account links to one user only.
      if (!(await client.set(key, encode(account), "NX"))) {
        throw new Error(`account ${account.provider}/${account.providerAccountId} is already linked`)
      }
      await client.sadd(k.userAccounts(account.userId), key)
      return account
    },
    async unlinkAccount({ provider, providerAccountId }) {
      const key = k.account(provider, providerAccountId)
      const account = decode<AdapterAccount>(await client.getdel(key))
      if (!account) return undefined
      await client.srem(k.userAccounts(account.userId), key)
      return account
    },
    getAccount: (providerAccountId, provider) => getAccount(provider, providerAccountId),

    async createSession(session) {
      const expiresAt = session.expires.getTime()
      await client.multi()
        .set(k.session(session.sessionToken), encode(session), "PXAT", expiresAt)
        .zadd(k.userSessions(session.userId), expiresAt, session.sessionToken)
        // Keep the per-user index from growing with sessions that expired on their own.
        .zremrangebyscore(k.userSessions(session.userId), "-inf", Date.now())
        .exec()
      return session
    },
    async getSessionAndUser(sessionToken) {
      const reply = (await client.eval(SESSION_AND_USER_SCRIPT, 1, k.session(sessionToken), userKeyPrefix)) as
        [string, string | null] | null
      if (!reply) return null
      const [session, user] = [decodeSession(reply[0]), decodeUser(reply[1])]
      return session && user ? { session, user } : null
    },
    async updateSession(patch) {
      const session = decodeSession(await client.get(k.session(patch.sessionToken)))
      if (!session) return null
      const merged: AdapterSession = { ...session, ...patch }
      const expiresAt = merged.expires.getTime()
      // XX on both: if the session was deleted since the GET, it stays deleted.
      const replies = await client.multi()
        .set(k.session(merged.sessionToken), encode(merged), "PXAT", expiresAt, "XX")
        .zadd(k.userSessions(merged.userId), "XX", expiresAt, merged.sessionToken)
        .exec()
      const written = replies?.[0]?.[1] === "OK"
      return written ? merged : null
    },
    // Session management (a Portcullis capability): the user's index, pruned of expired
    // tokens, then one MGET; a token whose key expired meanwhile is skipped.
    // No index of users: a SCAN of the user keys, then a page in memory. An admin console's
    // occasional read; a site with millions of users should list them from its own database.
    async listUsers({ search, verified, cursor, limit }) {
      const keys: string[] = []
      for await (const batch of scanKeys(client, `${globLiteral(k.user(""))}*`)) keys.push(...new Set(batch))
      const users: AdapterUser[] = []
      for (let i = 0; i < keys.length; i += 500) {
        const values = await Promise.all(keys.slice(i, i + 500).map((key) => client.get(key)))
        for (const value of values) {
          const user = decodeUser(value)
          if (user) users.push(user)
        }
      }
      const found = users
        .filter((u) => cursor === undefined || u.id > cursor)
        .filter((u) => verified === undefined || !!u.emailVerified === verified)
        .filter((u) => search === undefined || (u.email ?? "").toLowerCase().includes(search) || (u.name ?? "").toLowerCase().includes(search))
        .sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0))
      const page = found.slice(0, limit)
      return { users: page, next: found.length > limit ? page[page.length - 1]!.id : null }
    },
    async listSessions(userId) {
      const now = Date.now()
      const tokens = await client.zrangebyscore(k.userSessions(userId), now, "+inf")
      if (!tokens.length) return []
      const values = await client.mget(...tokens.map(k.session))
      return values.map(decodeSession).filter((s): s is AdapterSession => s !== null && s.userId === userId && s.expires.getTime() > now)
    },
    // Session keys expire with their session (PXAT), so the keys there are the live sessions:
    // counted by SCAN, which never blocks the server as KEYS would (and may repeat a key,
    // hence the set).
    async countSessions() {
      const keys = new Set<string>()
      for await (const batch of scanKeys(client, `${globLiteral(k.session(""))}*`)) for (const key of batch) keys.add(key)
      return keys.size
    },
    async deleteSession(sessionToken) {
      const session = decodeSession(await durably<string | null>((p) => p.getdel(k.session(sessionToken))))
      if (!session) return null
      await client.zrem(k.userSessions(session.userId), sessionToken)
      return session
    },

    async createVerificationToken(verificationToken) {
      const { identifier, token, expires } = verificationToken
      await client.set(k.verificationToken(identifier, token), encode(verificationToken), "PXAT", expires.getTime())
      return verificationToken
    },
    async useVerificationToken({ identifier, token }) {
      // GETDEL is one command, so of concurrent callers exactly one receives the value.
      return decodeVerificationToken(await durably<string | null>((p) => p.getdel(k.verificationToken(identifier, token))))
    },

    async createAuthenticator(authenticator) {
      if (!(await client.set(k.authenticator(authenticator.credentialID), encode(authenticator), "NX"))) {
        throw new Error(`authenticator ${authenticator.credentialID} already exists`)
      }
      await client.sadd(k.userAuthenticators(authenticator.userId), authenticator.credentialID)
      return authenticator
    },
    getAuthenticator,
    async listAuthenticatorsByUserId(userId) {
      const ids = await client.smembers(k.userAuthenticators(userId))
      if (ids.length === 0) return []
      const records = await client.mget(ids.map(k.authenticator))
      return records
        .map((json) => decode<AdapterAuthenticator>(json))
        .filter((a): a is AdapterAuthenticator => a?.userId === userId)
    },
    // Portcullis extensions for provider token refresh (docs/adapters.md).
    async getAccountByUserId(userId, provider) {
      const keys = await client.smembers(k.userAccounts(userId))
      const mine = keys.filter((key) => key.startsWith(k.account(provider, "")))
      if (mine.length === 0) return null
      const records = await client.mget(mine)
      return records.map((json) => decode<AdapterAccount>(json)).find((a) => a?.userId === userId && a.provider === provider) ?? null
    },
    async updateAccount({ provider, providerAccountId }, patch, expected) {
      // An empty refresh token stands for "none" in the script; real tokens are never empty.
      const reply = (await client.eval(
        UPDATE_ACCOUNT_SCRIPT, 1, k.account(provider, providerAccountId),
        // An unmarked account has no `reauth_required` at all, as before it was ever marked.
        JSON.stringify({ ...patch, ...(patch.reauth_required === false && { reauth_required: null }) }),
        expected ? "1" : "0", expected?.refresh_token ?? "",
      )) as string | null
      return decode<AdapterAccount>(reply)
    },
    async acquireLock(key, owner, ttlMs) {
      return (await client.set(k.lock(key), owner, "PX", ttlMs, "NX")) === "OK"
    },
    async releaseLock(key, owner) {
      await client.eval(RELEASE_SCRIPT, 1, k.lock(key), owner)
    },
    async setShared(key, value, ttlMs) {
      await client.set(k.lock(key), value, "PX", ttlMs)
    },
    async getShared(key) {
      return client.get(k.lock(key))
    },

    async getUserPassword(userId) {
      return client.get(k.userPassword(userId))
    },

    // Two-factor capability: the state in a hash, the backup code hashes in a list (their
    // order kept). A write replaces both in one script; a code is used by one LREM, a step
    // by one script — each atomic, so one code signs in once.
    async getTwoFactor(userId) {
      const replies = await client.multi().hgetall(k.twoFactor(userId)).lrange(k.twoFactorCodes(userId), 0, -1).exec()
      const [state, codes] = (replies ?? []).map(([error, value]) => {
        if (error) throw error
        return value
      }) as [Record<string, string>, string[]]
      if (!state || state.secret === undefined) return null
      return {
        userId,
        secret: state.secret,
        enabled: state.enabled === "1",
        lastUsedStep: state.lastUsedStep ? Number(state.lastUsedStep) : null,
        backupCodes: codes ?? [],
      } satisfies AdapterTwoFactor
    },
    async setTwoFactor(record) {
      const { userId } = record
      const written = await client.eval(
        SET_TWO_FACTOR_SCRIPT, 3, k.user(userId), k.twoFactor(userId), k.twoFactorCodes(userId),
        record.secret, record.enabled ? "1" : "0", record.lastUsedStep === null ? "" : String(record.lastUsedStep), ...record.backupCodes,
      )
      if (written !== 1) throw new Error(`no user with id ${userId}`)
    },
    async deleteTwoFactor(userId) {
      await client.del(k.twoFactor(userId), k.twoFactorCodes(userId))
    },
    async useTwoFactorStep(userId, step) {
      return (await durably<number>((p) => p.eval(USE_TWO_FACTOR_STEP_SCRIPT, 1, k.twoFactor(userId), String(step)))) === 1
    },
    async useTwoFactorBackupCode(userId, hash) {
      return (await durably<number>((p) => p.lrem(k.twoFactorCodes(userId), 1, hash))) === 1
    },
    async setUserPassword(userId, hash) {
      // Only for a user that exists, checked and written in one script: a hash cannot
      // outlive a deleteUser that runs at the same moment.
      const written = await client.eval(SET_PASSWORD_SCRIPT, 2, k.user(userId), k.userPassword(userId), hash)
      if (written !== 1) throw new Error(`no user with id ${userId}`)
    },

    async renameAuthenticator(credentialID, name) {
      // Read and written in one step: a rename racing a sign-in's counter update loses neither.
      await client.eval(RENAME_AUTHENTICATOR_SCRIPT, 1, k.authenticator(credentialID), name)
    },
    async deleteAuthenticator(credentialID) {
      const authenticator = await getAuthenticator(credentialID)
      if (!authenticator) return
      await client.multi().del(k.authenticator(credentialID)).srem(k.userAuthenticators(authenticator.userId), credentialID).exec()
    },
    async updateAuthenticatorCounter(credentialID, newCounter) {
      const authenticator = await getAuthenticator(credentialID)
      if (!authenticator) throw new Error(`no authenticator with credentialID ${credentialID}`)
      const updated = { ...authenticator, counter: newCounter }
      if (!(await client.set(k.authenticator(credentialID), encode(updated), "XX"))) {
        throw new Error(`authenticator ${credentialID} was deleted during the update`)
      }
      return updated
    },

    // Audit capability: records and their sorted-set indexes (`audit.ts`).
    ...redisAuditTrail(client, k),
  }
}

/**
 * A second connection (per node, on a cluster) for the writes that WAIT for replicas. WAIT
 * holds its connection until the replicas answer or the timeout passes — every time, while
 * a master has lost its replica — and commands queue behind it: on the app's own connection
 * that would stall every session check on that master. It reports errors through the app's
 * client and closes when that client ends.
 */
function companion(client: RedisClient): RedisClient {
  const second: RedisClient = isCluster(client) ? client.duplicate() : client.duplicate()
  second.on("error", (error: Error) => client.emit("error", error))
  client.once("end", () => second.disconnect())
  return second
}

/**
 * The key prefix of an adapter on `client`. On a cluster every key must hash to one slot
 * (MULTI and scripts refuse keys of two slots with CROSSSLOT), which a hash tag in the
 * prefix — the client's `keyPrefix` or the adapter's — ensures.
 */
function adapterPrefix(client: RedisClient, prefix: string | undefined): string {
  if (!isCluster(client)) return prefix ?? "portcullis:"
  if (prefix === undefined) return "{portcullis}:"
  if (!hasHashTag((client.options.keyPrefix ?? "") + prefix)) {
    throw new TypeError(
      `RedisAdapter: on a Redis Cluster the key prefix needs a hash tag, e.g. "{${prefix.replace(/[{}]/g, "")}}" in place of ${JSON.stringify(prefix)}, so that every key of the adapter lands in one slot`,
    )
  }
  return prefix
}

/** Whether Redis Cluster hashes `key` by a tag: a `{` followed later by a `}` with something between. */
function hasHashTag(key: string): boolean {
  const open = key.indexOf("{")
  if (open < 0) return false
  const close = key.indexOf("}", open + 1)
  return close > open + 1
}
