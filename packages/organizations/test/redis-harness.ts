/**
 * Redis for the organization store's tests: a client that fails fast, a random key prefix
 * per harness, and every key under it deleted on close (`@portcullis/adapter-test/redis`).
 */
import type { Redis } from "ioredis"
import { redisAvailable, redisService } from "@portcullis/adapter-test"
import { openRedisPrefix, randomKeyPrefix } from "@portcullis/adapter-test/redis"
import { redisOrganizationStore } from "@portcullis/organizations/redis"
import type { OrganizationStoreHarness } from "@portcullis/organizations/testing"

export { connectRedis, deleteKeys } from "@portcullis/adapter-test/redis"

export const redis = redisService()
export const redisGate = await redisAvailable()

export const testPrefix = () => randomKeyPrefix("orgs")

export async function openRedisStore(): Promise<OrganizationStoreHarness & { client: Redis; prefix: string }> {
  const { client, prefix, close } = await openRedisPrefix("orgs")
  return { client, prefix, store: redisOrganizationStore(client, { prefix }), close }
}
