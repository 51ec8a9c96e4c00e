/**
 * An ioredis client that fails fast during an outage instead of holding every request
 * for its whole length, and comes back on its own.
 * @module
 */
import { Redis, type RedisOptions } from "ioredis"
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
  /** Any other ioredis option, applied last (it wins over the ones above). */
  redisOptions?: RedisOptions
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
 * An ioredis client with the defaults of {@link RedisClientOptions}, its errors reported
 * through `logger` (once per run of failures, not once per reconnect attempt).
 *
 * @example
 * ```ts
 * import { once } from "node:events"
 * const redis = createRedisClient(process.env.REDIS_URL!, { logger })
 * await once(redis, "ready") // the offline queue is off: commands before this would fail
 * export const config = { adapter: RedisAdapter(redis), providers: [] }
 * ```
 */
export function createRedisClient(url: string, options: RedisClientOptions = {}): Redis {
  const client = new Redis(url, redisClientOptions(options))
  watchRedisErrors(client, options.logger)
  return client
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
export function watchRedisErrors(client: Redis, logger: StoreLogger = consoleStoreLogger): void {
  const report = failureReporter(logger, "Redis")
  client.on("error", report.failed)
  client.on("ready", report.recovered)
}

/**
 * What is missing on a client for it to survive an outage, as sentences (empty when
 * nothing is). The Redis adapter warns with these once.
 */
export function redisClientProblems(client: Redis): string[] {
  const problems: string[] = []
  if (client.listenerCount("error") === 0) {
    problems.push("it has no 'error' listener (ioredis prints \"[ioredis] Unhandled error event\" on every reconnect attempt)")
  }
  const { commandTimeout, enableOfflineQueue, maxRetriesPerRequest } = client.options
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
