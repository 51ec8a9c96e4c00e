/**
 * The token-refresh lock on Redis alone, for apps whose adapter is not the Redis adapter
 * (an Auth.js adapter on another database): `tokenRefresh: { lock: redisRefreshLock(redis) }`.
 * @module
 */
import type { RefreshLock } from "@portcullis/core"
import { RELEASE_SCRIPT } from "./adapter.js"
import { redisKeys } from "./keys.js"
import type { RedisClient } from "./client.js"

/**
 * A {@link RefreshLock} on Redis: `SET key owner NX PX ttl` takes it, a script deletes it
 * only for its owner, and values handed between instances expire with `PX`. Every command
 * names one key, so it works on a Redis Cluster as it is (no hash tag needed).
 *
 * @example
 * ```ts
 * import { createRedisClient, redisRefreshLock } from "@portcullis/redis-adapter"
 *
 * const redis = createRedisClient(process.env.REDIS_URL!)
 * export const config = { adapter: PrismaAdapter(prisma), tokenRefresh: { lock: redisRefreshLock(redis) }, providers }
 * ```
 */
export function redisRefreshLock(client: RedisClient, options: { prefix?: string } = {}): RefreshLock {
  const k = redisKeys(options.prefix ?? "portcullis:")
  return {
    acquire: async (key, owner, ttlMs) => (await client.set(k.lock(key), owner, "PX", ttlMs, "NX")) === "OK",
    release: async (key, owner) => {
      await client.eval(RELEASE_SCRIPT, 1, k.lock(key), owner)
    },
    share: async (key, value, ttlMs) => {
      await client.set(k.lock(key), value, "PX", ttlMs)
    },
    read: (key) => client.get(k.lock(key)),
  }
}
