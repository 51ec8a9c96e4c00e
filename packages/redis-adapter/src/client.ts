/**
 * An ioredis client that fails fast during an outage instead of holding every request
 * for its whole length, and comes back on its own — on one Redis server, or on a Redis
 * Cluster (an ioredis `Cluster`).
 * @module
 */
import { Cluster, Redis, type ClusterNode, type ClusterOptions, type RedisOptions } from "ioredis"
import { consoleStoreLogger, failureReporter, type StoreLogger } from "@portcullis/core/store-log"

/** Options of {@link createRedisClient} (all times in milliseconds). */
export interface RedisClientOptions {
  /** How long connecting (TCP and handshake) may take. Default 5000. */
  connectTimeoutMs?: number
  /** How long one command may take before it fails with "Command timed out". Default 2000. */
  commandTimeoutMs?: number
  /**
   * Commands in flight when the connection drops are retried on this many reconnects,
   * then fail. Default 1.
   */
  maxRetriesPerRequest?: number
  /** Reconnect attempts back off up to this delay (and keep going). Default 1000. */
  maxReconnectDelayMs?: number
  /** Where connection errors go. Default: one line on stderr per run of failures. */
  logger?: StoreLogger
  /** Any other ioredis option, applied last (it wins over the ones above). On a cluster: each node's connection options. */
  redisOptions?: RedisOptions
  /**
   * On a cluster only: any other ioredis `Cluster` option, applied last (e.g. `natMap`, or
   * `dnsLookup: (address, callback) => callback(null, address)` for a managed cluster with TLS).
   */
  clusterOptions?: Omit<ClusterOptions, "redisOptions">
}

/** Any client the Redis stores take: one server (`Redis`) or a cluster (`Cluster`). */
export type RedisClient = Redis | Cluster

/**
 * Where a cluster is: its seed nodes (any of them; ioredis learns the rest), or a
 * `redis+cluster://` (`rediss+cluster://` for TLS) URL listing them:
 * `redis+cluster://[user:password@]host:port[,host:port...]`.
 */
export interface RedisClusterTarget {
  cluster: ClusterNode[] | string
}

/** The defaults of {@link RedisClientOptions}. */
export const REDIS_CLIENT_DEFAULTS = {
  connectTimeoutMs: 5_000,
  commandTimeoutMs: 2_000,
  maxRetriesPerRequest: 1,
  maxReconnectDelayMs: 1_000,
} as const

/**
 * The ioredis options behind {@link createRedisClient}, for apps that construct the
 * client themselves (`new Redis(url, redisClientOptions())`, then {@link watchRedisErrors}).
 *
 * - `commandTimeout`: every command ends within this time, answered or not.
 * - `enableOfflineQueue: false`: while disconnected, commands fail at once instead of
 *   piling up in memory to be replayed later (a replayed write could land long after the
 *   caller was told it failed). Commands sent before the first connection fail too:
 *   wait for the `ready` event before serving requests.
 * - `retryStrategy`: reconnect forever, backing off to `maxReconnectDelayMs`.
 *
 * @example
 * ```ts
 * const redis = new Redis(process.env.REDIS_URL!, redisClientOptions({ commandTimeoutMs: 1_000 }))
 * watchRedisErrors(redis)
 * ```
 */
export function redisClientOptions(options: RedisClientOptions = {}): RedisOptions {
  const o = { ...REDIS_CLIENT_DEFAULTS, ...definedOnly(options) }
  return {
    connectTimeout: o.connectTimeoutMs,
    commandTimeout: o.commandTimeoutMs,
    maxRetriesPerRequest: o.maxRetriesPerRequest,
    enableOfflineQueue: false,
    retryStrategy: (attempt: number) => Math.min(attempt * 100, o.maxReconnectDelayMs),
    ...options.redisOptions,
  }
}

/**
 * The ioredis `Cluster` options behind `createRedisClient({ cluster })`: each node's
 * connection as in {@link redisClientOptions} (command timeout, fail-fast retries), and for
 * the cluster as a whole no offline queue (a command while no node map is known fails at
 * once) and a slot-map refresh that retries a moved or failed-over slot for a short while
 * (`retryDelayOnFailover`, `retryDelayOnClusterDown`, both bounded by `maxRetriesPerRequest`).
 *
 * @example
 * ```ts
 * const redis = new Cluster([{ host: "10.0.0.1", port: 6379 }], redisClusterOptions())
 * watchRedisErrors(redis)
 * ```
 */
export function redisClusterOptions(options: RedisClientOptions = {}): ClusterOptions {
  const o = { ...REDIS_CLIENT_DEFAULTS, ...definedOnly(options) }
  const { retryStrategy: _perNode, enableOfflineQueue: _queue, ...node } = redisClientOptions(options)
  return {
    enableOfflineQueue: false,
    clusterRetryStrategy: (attempt: number) => Math.min(attempt * 100, o.maxReconnectDelayMs),
    retryDelayOnFailover: 200,
    retryDelayOnClusterDown: 200,
    retryDelayOnTryAgain: 200,
    slotsRefreshTimeout: o.connectTimeoutMs,
    // ioredis refreshes its slot map on a redirection it follows; this also catches the
    // ones it does not (a pipeline half redirected) and failovers nobody has hit yet.
    slotsRefreshInterval: 5_000,
    redisOptions: node,
    ...options.clusterOptions,
  }
}

/**
 * An ioredis client with the defaults of {@link RedisClientOptions}, its errors reported
 * through `logger` (once per run of failures, not once per reconnect attempt).
 *
 * A URL (`redis://`, `rediss://`) gives a `Redis` on one server; `{ cluster }` gives a
 * `Cluster` (seed nodes, or a `redis+cluster://host:port,host:port` URL). Every store of
 * this package takes either; on a cluster, give the adapter a prefix with a hash tag
 * (docs/deploy.md, "Scaling out: Redis Cluster").
 *
 * @example
 * ```ts
 * import { once } from "node:events"
 * const redis = createRedisClient(process.env.REDIS_URL!, { logger })
 * await once(redis, "ready") // the offline queue is off: commands before this would fail
 * export const config = { adapter: RedisAdapter(redis), providers: [] }
 * ```
 *
 * @example On a Redis Cluster
 * ```ts
 * // REDIS_CLUSTER_URL=redis+cluster://10.0.0.1:6379,10.0.0.2:6379,10.0.0.3:6379
 * const redis = createRedisClient({ cluster: process.env.REDIS_CLUSTER_URL! })
 * await once(redis, "ready")
 * export const config = { adapter: RedisAdapter(redis, { prefix: "{portcullis}:" }), providers: [] }
 * ```
 */
export function createRedisClient(target: RedisClusterTarget, options?: RedisClientOptions): Cluster
export function createRedisClient(url: string, options?: RedisClientOptions): Redis
export function createRedisClient(target: string | RedisClusterTarget, options: RedisClientOptions = {}): RedisClient {
  if (typeof target === "string" && isClusterUrl(target)) {
    // A plain string is typed as one server: a cluster URL there would be a Cluster
    // returned as a Redis, so it must come wrapped, where the type says Cluster.
    throw new TypeError("createRedisClient: pass a redis+cluster:// URL as { cluster: url }, which returns an ioredis Cluster")
  }
  const client =
    typeof target === "string"
      ? new Redis(target, redisClientOptions(options))
      : typeof target.cluster === "string"
        ? clusterFromUrl(target.cluster, options)
        : new Cluster(target.cluster, redisClusterOptions(options))
  watchRedisErrors(client, options.logger)
  return client
}

function isClusterUrl(url: string): boolean {
  return /^rediss?\+cluster:\/\//i.test(url)
}

/** A `Cluster` on the nodes of a `redis+cluster://` URL; credentials and TLS apply to every node. */
function clusterFromUrl(url: string, options: RedisClientOptions): Cluster {
  const shape = "createRedisClient: a cluster URL reads redis+cluster://[user:password@]host:port[,host:port...]"
  const match = /^(rediss?)\+cluster:\/\/(?:([^@/]*)@)?([^/?#@]+)\/?$/i.exec(url)
  if (!match) throw new TypeError(shape)
  const [, scheme, auth, hosts] = match
  const nodes = hosts!.split(",").map((address) => {
    const parsed = URL.parse(`redis://${address.trim()}`)
    if (!parsed?.hostname) throw new TypeError(shape)
    return { host: parsed.hostname.replace(/^\[|\]$/g, ""), port: parsed.port ? Number(parsed.port) : 6379 }
  })
  const credentials: RedisOptions = {}
  if (auth !== undefined) {
    const colon = auth.indexOf(":")
    const username = decodeURIComponent(colon < 0 ? auth : auth.slice(0, colon))
    if (username) credentials.username = username
    if (colon >= 0) credentials.password = decodeURIComponent(auth.slice(colon + 1))
  }
  if (scheme!.toLowerCase() === "rediss") credentials.tls = {}
  return new Cluster(nodes, redisClusterOptions({ ...options, redisOptions: { ...credentials, ...options.redisOptions } }))
}

/**
 * Listens to a client's `error` and `ready` events: errors are reported once per run of
 * failures (ioredis emits one per reconnect attempt, and prints
 * "[ioredis] Unhandled error event" for each when nobody listens), a reconnect ends the run.
 *
 * @example
 * ```ts
 * watchRedisErrors(redis, { error: (m) => log.error(m), warn: (m) => log.warn(m) })
 * ```
 */
export function watchRedisErrors(client: RedisClient, logger: StoreLogger = consoleStoreLogger): void {
  const report = failureReporter(logger, "Redis")
  client.on("error", report.failed)
  client.on("ready", report.recovered)
}

/**
 * What is missing on a client for it to survive an outage, as sentences (empty when
 * nothing is). The Redis adapter warns with these once.
 */
export function redisClientProblems(client: RedisClient): string[] {
  const problems: string[] = []
  if (client.listenerCount("error") === 0) {
    problems.push("it has no 'error' listener (ioredis prints \"[ioredis] Unhandled error event\" on every reconnect attempt)")
  }
  // A cluster's per-node options carry the timeouts; its own options the offline queue.
  const { commandTimeout, maxRetriesPerRequest } = isCluster(client) ? { ...client.options.redisOptions } : client.options
  const { enableOfflineQueue } = client.options
  if (commandTimeout === undefined) {
    problems.push("it has no commandTimeout (a request waits for the whole outage)")
  }
  if (enableOfflineQueue !== false && maxRetriesPerRequest === null) {
    problems.push("its offline queue is on and maxRetriesPerRequest is null (commands queue without bound while disconnected)")
  }
  return problems
}

function definedOnly<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as Partial<T>
}

/**
 * Whether `client` is an ioredis `Cluster` (its own flag: no `instanceof` across copies of ioredis).
 *
 * @example
 * ```ts
 * const masters = isCluster(redis) ? redis.nodes("master") : [redis]
 * ```
 */
export function isCluster(client: RedisClient): client is Cluster {
  return client.isCluster
}
