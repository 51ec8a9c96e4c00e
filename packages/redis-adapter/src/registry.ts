/**
 * The JWT session registry on Redis (`session.registry`, docs/sessions.md).
 * @module
 */
import type { SessionRecord, SessionRegistry } from "@portcullis/core/adapters"
import { redisKeys, type RedisKeys } from "./keys.js"
import type { RedisClient } from "./client.js"
import { globLiteral, scanKeys } from "./scan.js"

/** Options of {@link RedisSessionRegistry}. */
export interface RedisSessionRegistryOptions {
  /**
   * Prefix of every key; default `portcullis:` (the adapter's). On a Redis Cluster it needs
   * no hash tag — every command names one user's key — and is better without one: the
   * users then spread over every master.
   */
  prefix?: string
}

/**
 * Adds a record and keeps the user's hash alive at least until the record expires
 * (ARGV: id, JSON, ms until it expires).
 */
const ADD_SCRIPT = `
redis.call("HSET", KEYS[1], ARGV[1], ARGV[2])
local want = tonumber(ARGV[3])
if redis.call("PTTL", KEYS[1]) < want then redis.call("PEXPIRE", KEYS[1], want) end
return 1
`

/**
 * Marks a session seen only if it is still there and unexpired — never re-creating one a
 * revocation removed — in one atomic step (ARGV: id, now ms, new expiry ms).
 */
const TOUCH_SCRIPT = `
local json = redis.call("HGET", KEYS[1], ARGV[1])
if not json then return 0 end
local record = cjson.decode(json)
local now = tonumber(ARGV[2])
if tonumber(record.expires) <= now then
  redis.call("HDEL", KEYS[1], ARGV[1])
  return 0
end
record.lastSeenAt = now
record.expires = tonumber(ARGV[3])
redis.call("HSET", KEYS[1], ARGV[1], cjson.encode(record))
local want = tonumber(ARGV[3]) - now
if redis.call("PTTL", KEYS[1]) < want then redis.call("PEXPIRE", KEYS[1], want) end
return 1
`

/** What is stored per session: dates as epoch milliseconds, so the scripts can compare them. */
interface Stored {
  createdAt: number
  lastSeenAt: number
  expires: number
  userAgent: string | null
  ipAddress: string | null
}

/**
 * A {@link SessionRegistry} on Redis: one hash per user (`session-registry:<userId>`, field
 * = session id), so every operation names the user and stays in one key. `touch` is one
 * script call — the one round trip a session check makes per `revocationCheckInterval`.
 *
 * @example
 * ```ts
 * const redis = createRedisClient(process.env.REDIS_URL!)
 * export const config = { providers, session: { strategy: "jwt", registry: new RedisSessionRegistry(redis) } }
 * ```
 */
export class RedisSessionRegistry implements SessionRegistry {
  readonly #keys: RedisKeys

  constructor(
    private readonly client: RedisClient,
    options: RedisSessionRegistryOptions = {},
  ) {
    this.#keys = redisKeys(options.prefix ?? "portcullis:")
  }

  async add(record: SessionRecord): Promise<void> {
    const stored: Stored = {
      createdAt: record.createdAt.getTime(),
      lastSeenAt: record.lastSeenAt.getTime(),
      expires: record.expires.getTime(),
      userAgent: record.userAgent ?? null,
      ipAddress: record.ipAddress ?? null,
    }
    const ttl = Math.max(1, stored.expires - Date.now())
    await this.client.eval(ADD_SCRIPT, 1, this.#keys.sessionRegistry(record.userId), record.id, JSON.stringify(stored), ttl)
  }

  async touch(userId: string, id: string, lastSeenAt: Date, expires: Date): Promise<boolean> {
    const found = await this.client.eval(TOUCH_SCRIPT, 1, this.#keys.sessionRegistry(userId), id, lastSeenAt.getTime(), expires.getTime())
    return found === 1
  }

  async list(userId: string): Promise<SessionRecord[]> {
    const key = this.#keys.sessionRegistry(userId)
    const all = await this.client.hgetall(key)
    const now = Date.now()
    const records: SessionRecord[] = []
    const expired: string[] = []
    for (const [id, json] of Object.entries(all)) {
      let stored: Stored
      try {
        stored = JSON.parse(json) as Stored
      } catch {
        expired.push(id)
        continue
      }
      if (stored.expires <= now) expired.push(id)
      else records.push({ id, userId, createdAt: new Date(stored.createdAt), lastSeenAt: new Date(stored.lastSeenAt), expires: new Date(stored.expires), userAgent: stored.userAgent, ipAddress: stored.ipAddress })
    }
    if (expired.length) await this.client.hdel(key, ...expired)
    return records
  }

  /**
   * The unexpired sessions of every user: a SCAN of the users' hashes (of every master, on
   * a cluster), then their values a batch at a time. An admin console's occasional read, not
   * a request's.
   */
  async count(): Promise<number> {
    const keys = new Set<string>()
    for await (const batch of scanKeys(this.client, `${globLiteral(this.#keys.sessionRegistry(""))}*`)) for (const key of batch) keys.add(key)
    const all = [...keys]
    const now = Date.now()
    let total = 0
    for (let i = 0; i < all.length; i += 500) {
      const values = await Promise.all(all.slice(i, i + 500).map((key) => this.client.hvals(key)))
      for (const jsons of values) for (const json of jsons) if (unexpired(json, now)) total++
    }
    return total
  }

  async remove(userId: string, ids: string[]): Promise<number> {
    if (!ids.length) return 0
    return this.client.hdel(this.#keys.sessionRegistry(userId), ...new Set(ids))
  }

  async removeAll(userId: string): Promise<number> {
    const key = this.#keys.sessionRegistry(userId)
    const replies = await this.client.multi().hlen(key).del(key).exec()
    const error = replies?.find(([e]) => e)?.[0]
    if (!replies || error) throw error ?? new Error("the removeAll transaction was aborted")
    return Number(replies[0]![1])
  }
}

/** Whether a stored record has not expired at `now` (an unreadable one counts as expired, as `list` drops it). */
function unexpired(json: string, now: number): boolean {
  try {
    return (JSON.parse(json) as Stored).expires > now
  } catch {
    return false
  }
}
