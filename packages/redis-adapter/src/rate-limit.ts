/**
 * Rate-limit counters in Redis (`rate-limiter-flexible`'s `RateLimiterRedis`: one Lua script
 * per hit, so increments from every app process are atomic and none is lost). Use it when
 * more than one process or instance serves the app: the in-memory default counts per process.
 *
 * @example
 * ```ts
 * import { createRedisClient } from "@portcullis/redis-adapter"
 * import { redisRateLimitStore } from "@portcullis/redis-adapter/rate-limit"
 *
 * const redis = createRedisClient(process.env.REDIS_URL!)
 * export const config = { providers, rateLimit: { store: redisRateLimitStore(redis) } }
 * ```
 * @module
 */
import type { RedisClient } from "./client.js"
import { RateLimiterRedis } from "rate-limiter-flexible"
import { flexibleStore, type RateLimitStore } from "@portcullis/core/rate-limit"

/** Options of {@link redisRateLimitStore}. */
export interface RedisRateLimitOptions {
  /** Prefix of every counter key. Default `"portcullis:rl"`. Give each app sharing a Redis its own. */
  prefix?: string
}

/**
 * A {@link RateLimitStore} on `client` (an ioredis client or Cluster; `createRedisClient`
 * fails fast during an outage). Each hit is one script on one key, so on a cluster the
 * counters spread over every master and no hash tag is needed.
 */
export function redisRateLimitStore(client: RedisClient, options: RedisRateLimitOptions = {}): RateLimitStore {
  const keyPrefix = options.prefix ?? "portcullis:rl"
  // Every limiter writes the same keyspace, so any of them reads or deletes any key.
  return flexibleStore((duration) => new RateLimiterRedis({ storeClient: client, keyPrefix, points: 1, duration }), { shared: true })
}
