/**
 * `@portcullis/redis-adapter`: Portcullis storage on Redis (6.2+) through ioredis.
 *
 * @example
 * ```ts
 * import { Redis } from "ioredis"
 * import { RedisAdapter } from "@portcullis/redis-adapter"
 *
 * export const config = { adapter: RedisAdapter(new Redis(process.env.REDIS_URL!)), providers: [] }
 * ```
 * @module
 */
export { RedisAdapter } from "./adapter.js"
export type { RedisAdapterOptions } from "./adapter.js"
export { redisKeys } from "./keys.js"
export type { RedisKeys } from "./keys.js"
