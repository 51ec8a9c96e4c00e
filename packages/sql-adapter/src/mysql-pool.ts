/**
 * A `mysql2` pool that survives its server: bounded connect, wait and query times, every
 * connection error handled, and a connection that timed out or failed destroyed instead
 * of being handed to the next query.
 * @module
 */
import type { MysqlPool, MysqlPoolConnection, MysqlQueryResult } from "kysely"
import { consoleStoreLogger, failureReporter, type FailureReporter, type StoreLogger } from "@portcullis/core/store-log"

/** Options of {@link createMysqlPool} (all times in milliseconds). */
export interface MysqlPoolOptions {
  /** Connections at most. Default 10. */
  connectionLimit?: number
  /** How long opening a connection (TCP and handshake) may take. Default 5000. */
  connectTimeoutMs?: number
  /** How long a query may wait for a free connection when all are busy. Default 5000. */
  acquireTimeoutMs?: number
  /**
   * How long one query may take; the connection is then closed (mysql2 cannot cancel a
   * query in place). Default 5000.
   */
  queryTimeoutMs?: number
  /** Queries waiting for a connection at most; more fail at once. Default 100. */
  queueLimit?: number
  /** An idle connection is closed after this long. Default 30000. */
  idleTimeoutMs?: number
  /** Where connection errors go. Default: one line on stderr per run of failures. */
  logger?: StoreLogger
  /** Any other `mysql2` pool option, applied last (it wins over the ones above). */
  poolConfig?: Record<string, unknown>
}

/** The defaults of {@link MysqlPoolOptions}. */
export const MYSQL_POOL_DEFAULTS = {
  connectionLimit: 10,
  connectTimeoutMs: 5_000,
  acquireTimeoutMs: 5_000,
  queryTimeoutMs: 5_000,
  queueLimit: 100,
  idleTimeoutMs: 30_000,
} as const

type Emitter = {
  on(event: string, listener: (...args: any[]) => void): unknown
  listenerCount(event: string): number
}
export type Mysql2PoolLike = MysqlPool & Emitter

/**
 * The `mysql2` pool configuration for a URL with the defaults above (and `timezone: "Z"`,
 * which the adapter needs), for apps that build the pool themselves.
 *
 * @example
 * ```ts
 * const pool = mysql.createPool(mysqlPoolConfig(process.env.DATABASE_URL!, { connectionLimit: 20 }))
 * ```
 */
export function mysqlPoolConfig(url: string, options: MysqlPoolOptions = {}): Record<string, unknown> {
  const o = { ...MYSQL_POOL_DEFAULTS, ...definedOnly(options) }
  return {
    uri: url,
    timezone: "Z",
    connectionLimit: o.connectionLimit,
    maxIdle: o.connectionLimit,
    idleTimeout: o.idleTimeoutMs,
    connectTimeout: o.connectTimeoutMs,
    waitForConnections: true,
    queueLimit: o.queueLimit,
    // Finds connections whose peer vanished without a FIN (failover, cable, firewall).
    enableKeepAlive: true,
    keepAliveInitialDelay: 10_000,
    ...options.poolConfig,
  }
}

/**
 * A `mysql2` pool for a URL with the defaults of {@link MysqlPoolOptions}, guarded by
 * {@link guardMysqlPool}. `mysql2` is loaded here, so only MySQL users need it.
 *
 * @example
 * ```ts
 * const db = createMysqlKysely(await createMysqlPool("mysql://root@127.0.0.1:3306/app", { logger }))
 * ```
 */
export async function createMysqlPool(url: string, options: MysqlPoolOptions = {}): Promise<MysqlPool> {
  const mysql = await import("mysql2")
  const pool = mysql.createPool(mysqlPoolConfig(url, options) as never) as unknown as Mysql2PoolLike
  return guardMysqlPool(pool, { ...options, warnWhenUnguarded: false })
}

/** Options of {@link guardMysqlPool}. */
export interface MysqlGuardOptions extends Pick<MysqlPoolOptions, "acquireTimeoutMs" | "queryTimeoutMs" | "logger"> {
  /** Warn once when the pool has no `error` listener of its own. Default true. */
  warnWhenUnguarded?: boolean
}

/**
 * Makes a `mysql2` (callback API) pool safe to give to Kysely: an `error` listener on every
 * connection, a bounded wait for a free connection (mysql2 has none), a timeout on every
 * query, and a connection whose query timed out or failed fatally destroyed on release.
 *
 * @example
 * ```ts
 * const pool = mysql.createPool(mysqlPoolConfig(url))
 * const db = new Kysely<any>({ dialect: new MysqlDialect({ pool: guardMysqlPool(pool) }) })
 * ```
 */
export function guardMysqlPool(pool: Mysql2PoolLike, options: MysqlGuardOptions = {}): MysqlPool {
  const logger = options.logger ?? consoleStoreLogger
  const acquireTimeoutMs = options.acquireTimeoutMs ?? MYSQL_POOL_DEFAULTS.acquireTimeoutMs
  const queryTimeoutMs = options.queryTimeoutMs ?? MYSQL_POOL_DEFAULTS.queryTimeoutMs
  const report = failureReporter(logger, "MySQL")
  if (pool.listenerCount("error") === 0 && options.warnWhenUnguarded !== false) {
    logger.warn(
      "MySQL: the pool given to Portcullis has no 'error' listener; one was added to each connection. " +
        "Create it with createMysqlPool() or mysqlPoolConfig() to also get timeouts (docs/reliability.md).",
    )
  }
  pool.on("error", report.failed)
  const listening = new WeakSet<object>()
  pool.on("connection", (connection: Emitter) => {
    report.recovered()
    connection.on("error", report.failed)
    listening.add(connection)
  })
  return {
    getConnection(callback) {
      let settled = false
      const timer = setTimeout(() => {
        settled = true
        const error = new Error(`no MySQL connection became free within ${acquireTimeoutMs} ms`)
        report.failed(error)
        callback(error, undefined as never)
      }, acquireTimeoutMs)
      pool.getConnection((error, connection) => {
        if (settled) {
          // The caller gave up; hand the late connection straight back.
          connection?.release()
          return
        }
        settled = true
        clearTimeout(timer)
        if (error) {
          report.failed(error)
          return callback(error, connection)
        }
        const emitter = connection as unknown as Emitter
        if (!listening.has(emitter)) {
          emitter.on("error", report.failed)
          listening.add(emitter)
        }
        callback(null, guardConnection(connection, queryTimeoutMs, report))
      })
    },
    end: (callback) => pool.end(callback),
  }
}

/** A checked-out connection whose queries carry a timeout, destroyed on release when broken. */
function guardConnection(connection: MysqlPoolConnection, timeoutMs: number, report: FailureReporter): MysqlPoolConnection {
  let broken = false
  const query = connection.query as unknown as (options: object, callback?: (error: unknown, result: MysqlQueryResult) => void) => ReturnType<MysqlPoolConnection["query"]>
  return {
    get config() {
      return connection.config
    },
    get threadId() {
      return connection.threadId
    },
    connect: (callback) => connection.connect(callback),
    destroy: () => connection.destroy(),
    query(sql, parameters, callback) {
      const options = { sql, values: parameters, timeout: timeoutMs }
      if (!callback) return query.call(connection, options)
      return query.call(connection, options, (error, result) => {
        if (error && isConnectionFailure(error)) {
          broken = true
          report.failed(error)
        }
        callback(error, result)
      })
    },
    release: () => (broken ? connection.destroy() : connection.release()),
  }
}

/** A timeout, or an error mysql2 marks fatal (the connection is unusable). */
function isConnectionFailure(error: unknown): boolean {
  const e = error as { fatal?: unknown; code?: unknown } | null
  return e?.fatal === true || e?.code === "PROTOCOL_SEQUENCE_TIMEOUT"
}

function definedOnly<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as Partial<T>
}
