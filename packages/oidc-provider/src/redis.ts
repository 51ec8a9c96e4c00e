/**
 * `@portcullis/oidc-provider/redis`: the OpenID Provider's state on Redis or Redis Cluster
 * through ioredis — every single-use step one Lua script, every key with an end a TTL.
 *
 * @example
 * ```ts
 * import { Redis } from "ioredis"
 * import { redisOidcProviderStore } from "@portcullis/oidc-provider/redis"
 *
 * const store = redisOidcProviderStore(new Redis(process.env.REDIS_URL!), { prefix: "myapp:op:" })
 * ```
 * @module
 */
export { redisOidcProviderStore } from "./redis/store.js"
export type { RedisOidcProviderStoreOptions } from "./redis/store.js"
export { oidcProviderRedisKeys } from "./redis/keys.js"
export type { OidcProviderRedisKeys } from "./redis/keys.js"
