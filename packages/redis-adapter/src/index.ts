/**
 * `@portcullis/redis-adapter`: Portcullis storage on Redis (6.2+) through ioredis.
 *
 * @example
 * ```ts
 * import { createRedisClient, RedisAdapter } from "@portcullis/redis-adapter"
 *
 * export const config = { adapter: RedisAdapter(createRedisClient(process.env.REDIS_URL!)), providers: [] }
 * ```
 * @module
 */
export { RedisAdapter, RedisReplicationError } from "./adapter.js"
export type { RedisAdapterOptions } from "./adapter.js"
export { RedisSessionRegistry } from "./registry.js"
export type { RedisSessionRegistryOptions } from "./registry.js"
export { redisKeys } from "./keys.js"
export { redisRefreshLock } from "./lock.js"
export { createRedisClient, isCluster, REDIS_CLIENT_DEFAULTS, redisClientOptions, redisClientProblems, redisClusterOptions, watchRedisErrors } from "./client.js"
export type { RedisClient, RedisClientOptions, RedisClusterTarget } from "./client.js"
export { scanKeys } from "./scan.js"
export { consoleStoreLogger } from "@portcullis/core/store-log"
export type { StoreLogger } from "@portcullis/core/store-log"
export type { RedisKeys } from "./keys.js"
