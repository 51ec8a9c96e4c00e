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
export { RedisAdapter } from "./adapter.js"
export type { RedisAdapterOptions } from "./adapter.js"
export { RedisSessionRegistry } from "./registry.js"
export type { RedisSessionRegistryOptions } from "./registry.js"
export { redisKeys } from "./keys.js"
export { redisRefreshLock } from "./lock.js"
export { createRedisClient, REDIS_CLIENT_DEFAULTS, redisClientOptions, redisClientProblems, watchRedisErrors } from "./client.js"
export type { RedisClientOptions } from "./client.js"
export { consoleStoreLogger } from "@portcullis/core/store-log"
export type { StoreLogger } from "@portcullis/core/store-log"
export type { RedisKeys } from "./keys.js"
