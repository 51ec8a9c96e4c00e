/**
 * `@portcullis/admin/redis`: bans on Redis (or Redis Cluster) through ioredis — one key per
 * banned user, its JSON written by one `SET` with the ban's expiry as the key's (so an
 * expired ban lapses in Redis itself), read by one `GET` at every sign-in.
 *
 * @example
 * ```ts
 * import { Redis } from "ioredis"
 * import { redisBanStore } from "@portcullis/admin/redis"
 *
 * const store = redisBanStore(new Redis(process.env.REDIS_URL!), { prefix: "myapp:bans:" })
 * ```
 * @module
 */
import type { Ban, BanStore } from "./store/types.js"
import type { Impersonation, ImpersonationStore } from "./store/impersonations.js"

/** The commands the store uses: an ioredis client (`Redis` or `Cluster`) has them. */
export interface BanRedisClient {
  get(key: string): Promise<string | null>
  // Two overloads, not a rest parameter: ioredis types every SET form apart, and a rest of
  // strings and numbers matches none of them (the client would not type-check as this).
  set(key: string, value: string): Promise<unknown>
  set(key: string, value: string, millisecondsToken: "PX", milliseconds: number): Promise<unknown>
  del(...keys: string[]): Promise<number>
}

export interface RedisBanStoreOptions {
  /** Prefix of every key. Default `"portcullis:admin:"`. */
  prefix?: string
}

interface Stored {
  reason: string
  bannedBy: string
  bannedAt: number
  expires: number | null
}

/** A ban store on `client`. */
export function redisBanStore(client: BanRedisClient, options: RedisBanStoreOptions = {}): BanStore {
  const prefix = options.prefix ?? "portcullis:admin:"
  // The user id in braces: one hash slot per user on a cluster (each key stands alone).
  const key = (userId: string) => `${prefix}ban:{${userId}}`
  const read = (userId: string, raw: string | null, now: Date): Ban | null => {
    if (!raw) return null
    const stored = JSON.parse(raw) as Stored
    if (stored.expires !== null && stored.expires <= now.getTime()) return null
    return { userId, reason: stored.reason, bannedBy: stored.bannedBy, bannedAt: new Date(stored.bannedAt), expires: stored.expires === null ? null : new Date(stored.expires) }
  }
  return {
    async ban(ban) {
      const stored: Stored = { reason: ban.reason, bannedBy: ban.bannedBy, bannedAt: ban.bannedAt.getTime(), expires: ban.expires?.getTime() ?? null }
      const ttl = ban.expires ? Math.max(1, ban.expires.getTime() - Date.now()) : undefined
      await (ttl === undefined ? client.set(key(ban.userId), JSON.stringify(stored)) : client.set(key(ban.userId), JSON.stringify(stored), "PX", ttl))
    },
    async unban(userId) {
      const live = await this.get(userId)
      await client.del(key(userId))
      return live !== null
    },
    async get(userId, now = new Date()) {
      return read(userId, await client.get(key(userId)), now)
    },
    async many(userIds, now = new Date()) {
      // One GET per user: MGET would cross hash slots on a cluster.
      const out = new Map<string, Ban>()
      const found = await Promise.all(userIds.map(async (id) => [id, read(id, await client.get(key(id)), now)] as const))
      for (const [id, ban] of found) if (ban) out.set(id, ban)
      return out
    },
  }
}

/**
 * Impersonations on Redis: one key per impersonated session (its key for the console), the
 * record's JSON written by one `SET … PX` with how long it must be kept, read by one `GET` at
 * every check of that session — so every instance ends it at its limit.
 *
 * @example
 * ```ts
 * admin({ store: redisBanStore(redis), roles: ["admin"], impersonation: { store: redisImpersonationStore(redis) } })
 * ```
 */
export function redisImpersonationStore(client: BanRedisClient, options: RedisBanStoreOptions = {}): ImpersonationStore {
  const prefix = options.prefix ?? "portcullis:admin:"
  const key = (sessionKey: string) => `${prefix}impersonation:{${sessionKey}}`
  return {
    async put(sessionKey, record, ttl) {
      const stored = { ...record, startedAt: record.startedAt.getTime(), until: record.until.getTime(), endedAt: record.endedAt?.getTime() ?? null }
      await client.set(key(sessionKey), JSON.stringify(stored), "PX", Math.max(1, Math.ceil(ttl)))
    },
    async get(sessionKey) {
      const raw = await client.get(key(sessionKey))
      if (!raw) return null
      const s = JSON.parse(raw) as Omit<Impersonation, "startedAt" | "until" | "endedAt"> & { startedAt: number; until: number; endedAt: number | null }
      return { userId: s.userId, by: { id: s.by.id, email: s.by.email ?? null }, startedAt: new Date(s.startedAt), until: new Date(s.until), endedAt: s.endedAt === null ? null : new Date(s.endedAt) }
    },
  }
}
