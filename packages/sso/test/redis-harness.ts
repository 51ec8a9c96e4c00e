/**
 * Redis for the SSO store's tests: a client that fails fast, a random key prefix per
 * harness, and every key under it deleted on close.
 */
import { randomBytes } from "node:crypto"
import { Redis } from "ioredis"
import { redisAvailable, redisService } from "@portcullis/adapter-test"
import { redisSsoStore } from "@portcullis/sso/redis"
import type { SsoStoreHarness } from "@portcullis/sso/testing"

export const redis = redisService()
export const redisGate = await redisAvailable()

/** A client that fails fast instead of retrying forever, which ioredis does by default. */
export function connectRedis(url = redis.url): Redis {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null, connectTimeout: 3_000, commandTimeout: 10_000 })
  // Failures reach the tests through the command promises; this only keeps ioredis quiet.
  client.on("error", () => {})
  return client
}

export const testPrefix = () => `portcullis-test:sso:${randomBytes(4).toString("hex")}:`

/** Deletes every key under `prefix`. */
export async function deleteKeys(client: Redis, prefix: string): Promise<void> {
  for await (const batch of client.scanStream({ match: `${prefix}*`, count: 500 })) {
    if ((batch as string[]).length) await client.del(...(batch as string[]))
  }
}

export async function openRedisStore(): Promise<SsoStoreHarness & { client: Redis; prefix: string }> {
  const prefix = testPrefix()
  const client = connectRedis()
  await client.connect()
  return {
    client,
    prefix,
    store: redisSsoStore(client, { prefix }),
    async cleanup() {
      await deleteKeys(client, prefix)
      await client.quit()
    },
  }
}
