/**
 * Redis for the SSO store's tests: a client that fails fast, a random key prefix per
 * harness, and every key under it deleted on close (`@portcullis/adapter-test/redis`).
 */
import type { Redis } from "ioredis"
import { redisAvailable, redisService } from "@portcullis/adapter-test"
import { openRedisPrefix, randomKeyPrefix } from "@portcullis/adapter-test/redis"
import { redisSsoStore } from "@portcullis/sso/redis"
import type { SsoStoreHarness } from "@portcullis/sso/testing"

export { connectRedis, deleteKeys } from "@portcullis/adapter-test/redis"

export const redis = redisService()
export const redisGate = await redisAvailable()

export const testPrefix = () => randomKeyPrefix("sso")

export async function openRedisStore(): Promise<SsoStoreHarness & { client: Redis; prefix: string }> {
  const { client, prefix, close } = await openRedisPrefix("sso")
  return { client, prefix, store: redisSsoStore(client, { prefix }), cleanup: close }
}
