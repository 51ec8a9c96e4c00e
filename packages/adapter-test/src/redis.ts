/**
 * Redis for store suites: a client that fails fast, a random key prefix per harness, and
 * every key under a prefix deleted afterwards. The gate is `redisAvailable()` from the
 * package index.
 * @module
 */
import { randomBytes } from "node:crypto"
import { Cluster, Redis } from "ioredis"
import { clusterNodes, redisClusterService, redisService } from "./services.js"

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
 * A client on the test Redis Cluster ({@link redisClusterService}), or the one at `url`,
 * failing fast as {@link connectRedis}'s does. Not connected yet (`lazyConnect`).
 *
 * @example
 * ```ts
 * const cluster = connectRedisCluster()
 * await cluster.connect()
 * ```
 */
export function connectRedisCluster(url = redisClusterService().url): Cluster {
  const client = new Cluster(clusterNodes(url), {
    lazyConnect: true,
    clusterRetryStrategy: () => null,
    redisOptions: { maxRetriesPerRequest: 1, connectTimeout: 3_000, commandTimeout: 10_000 },
  })
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
 * The same prefix with a Redis Cluster hash tag around it, `{portcullis-test:<tag>:<hex>}:`,
 * so that a store's multi-key scripts and transactions stay in one slot.
 *
 * @example
 * ```ts
 * randomTaggedPrefix("sso") // "{portcullis-test:sso:3f9a0c1d}:"
 * ```
 */
export function randomTaggedPrefix(tag: string): string {
  return `{${randomKeyPrefix(tag).slice(0, -1)}}:`
}

/**
 * The keys under `prefix`, from every master on a cluster (SCAN on a cluster reaches one node).
 *
 * @example
 * ```ts
 * expect(await listKeys(client, prefix)).toEqual([])
 * ```
 */
export async function listKeys(client: Redis | Cluster, prefix: string): Promise<string[]> {
  const keys = new Set<string>()
  const nodes = client instanceof Cluster ? client.nodes("master") : [client]
  const match = `${prefix.replace(/[*?[\]\\]/g, "\\$&")}*`
  for (const node of nodes) for await (const batch of node.scanStream({ match, count: 500 })) for (const key of batch as string[]) keys.add(key)
  return [...keys]
}

/**
 * Deletes every key under `prefix` (one key per DEL: keys of two cluster slots cannot share one).
 *
 * @example
 * ```ts
 * await deleteKeys(client, prefix)
 * ```
 */
export async function deleteKeys(client: Redis | Cluster, prefix: string): Promise<void> {
  const keys = await listKeys(client, prefix)
  if (client instanceof Cluster) await Promise.all(keys.map((key) => client.del(key)))
  else if (keys.length) await client.del(...keys)
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

/**
 * {@link openRedisPrefix} on the test Redis Cluster: a connected fail-fast cluster client and
 * a fresh prefix (no hash tag: a store's own tags decide its slots); `close` deletes the
 * prefix's keys on every master and disconnects.
 *
 * @example
 * ```ts
 * const { client, prefix, close } = await openRedisClusterPrefix("sso")
 * const store = redisSsoStore(client, { prefix })
 * ```
 */
export async function openRedisClusterPrefix(tag: string): Promise<{ client: Cluster; prefix: string; close(): Promise<void> }> {
  const prefix = randomKeyPrefix(tag)
  const client = connectRedisCluster()
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
