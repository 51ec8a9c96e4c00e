/**
 * Redis for store suites: a client that fails fast, a random key prefix per harness, and
 * every key under a prefix deleted afterwards. The gate is `redisAvailable()` from the
 * package index.
 * @module
 */
import { randomBytes } from "node:crypto"
import { Redis } from "ioredis"
import { redisService } from "./services.js"

/**
 * A client on the test Redis ({@link redisService}), or the one at `url`, that fails fast
 * instead of retrying forever, which ioredis does by default. Not connected yet (`lazyConnect`).
 *
 * @example
 * ```ts
 * const client = connectRedis()
 * await client.connect()
 * ```
 */
export function connectRedis(url = redisService().url): Redis {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null, connectTimeout: 3_000, commandTimeout: 10_000 })
  // Failures reach the tests through the command promises; this only keeps ioredis quiet.
  client.on("error", () => {})
  return client
}

/**
 * A key prefix no other run uses: `portcullis-test:<tag>:<8 random hex digits>:`.
 *
 * @example
 * ```ts
 * randomKeyPrefix("sso") // "portcullis-test:sso:3f9a0c1d:"
 * ```
 */
export function randomKeyPrefix(tag: string): string {
  return `portcullis-test:${tag}:${randomBytes(4).toString("hex")}:`
}

/**
 * Deletes every key under `prefix`.
 *
 * @example
 * ```ts
 * await deleteKeys(client, prefix)
 * ```
 */
export async function deleteKeys(client: Redis, prefix: string): Promise<void> {
  for await (const batch of client.scanStream({ match: `${prefix}*`, count: 500 })) {
    if ((batch as string[]).length) await client.del(...(batch as string[]))
  }
}

/**
 * A connected fail-fast client and a fresh prefix; `close` deletes the prefix's keys and
 * disconnects.
 *
 * @example
 * ```ts
 * const { client, prefix, close } = await openRedisPrefix("sso")
 * const store = redisSsoStore(client, { prefix })
 * ```
 */
export async function openRedisPrefix(tag: string): Promise<{ client: Redis; prefix: string; close(): Promise<void> }> {
  const prefix = randomKeyPrefix(tag)
  const client = connectRedis()
  await client.connect()
  return {
    client,
    prefix,
    async close() {
      await deleteKeys(client, prefix)
      await client.quit()
    },
  }
}
