/**
 * `@portcullis/sso/redis`: SSO state on Redis or Redis Cluster through ioredis — single use
 * by SET NX and GETDEL, every other multi-key rule one Lua script on one hash tag.
 *
 * @example
 * ```ts
 * import { Redis } from "ioredis"
 * import { redisSsoStore } from "@portcullis/sso/redis"
 *
 * const store = redisSsoStore(new Redis(process.env.REDIS_URL!), { prefix: "myapp:sso:" })
 * ```
 * @module
 */
export { redisSsoStore } from "./redis/store.js"
export type { RedisSsoStoreOptions } from "./redis/store.js"
export { ssoRedisKeys } from "./redis/keys.js"
export type { SsoRedisKeys } from "./redis/keys.js"
