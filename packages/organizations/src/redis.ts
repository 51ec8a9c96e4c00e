/**
 * `@portcullis/organizations/redis`: organizations on Redis or Redis Cluster through
 * ioredis, each multi-key change one Lua script on one organization's slot.
 *
 * @example
 * ```ts
 * import { Redis } from "ioredis"
 * import { redisOrganizationStore } from "@portcullis/organizations/redis"
 *
 * const store = redisOrganizationStore(new Redis(process.env.REDIS_URL!), { prefix: "myapp:orgs:" })
 * ```
 * @module
 */
export { redisOrganizationStore, STALE_CLAIM_MS } from "./redis/store.js"
export type { RedisOrganizationStoreOptions } from "./redis/store.js"
export { organizationRedisKeys } from "./redis/keys.js"
export type { OrganizationRedisKeys } from "./redis/keys.js"
