/**
 * A `pg` pool that survives its server: bounded connect, wait and query times, every
 * connection error handled, and a connection that failed below SQL level thrown away
 * instead of being handed to the next query.
 * @module
 */
import type { PostgresPool, PostgresPoolClient } from "kysely"
import { consoleStoreLogger, failureReporter, type FailureReporter, type StoreLogger } from "@portcullis/core/store-log"

/** Options of {@link createPostgresPool} (all times in milliseconds). */
export interface PostgresPoolOptions {
  /** Connections at most. Default 10. */
  max?: number
  /**
   * How long to wait for a connection: to open a new one, or for a busy one to be freed
   * when `max` are in use. Default 5000.
   */
  connectTimeoutMs?: number
  /**
   * How long one statement may run. The server cancels it then (`statement_timeout`);
   * if the server does not answer at all (paused, network gone) the client gives up one
   * second later and closes that connection. Default 5000.
   */
  queryTimeoutMs?: number
  /**
   * Whether the server-side limit (`statement_timeout`, from `queryTimeoutMs`) is sent as a
   * startup parameter of each connection. Default true. Set false behind a pooler that
   * refuses startup parameters it does not know — PgBouncer answers "unsupported startup
   * parameter: statement_timeout" unless its `ignore_startup_parameters` lists it — and put
   * the limit on the role instead (`ALTER ROLE app SET statement_timeout = '5s'`). A
   * pooler that ignores the parameter drops it silently, so the same advice holds there.
   * The client-side limit (`queryTimeoutMs` + 1 s) applies either way.
   */
  sendStatementTimeout?: boolean
  /** An idle connection is closed after this long. Default 30000. */
  idleTimeoutMs?: number
  /** Where connection errors go. Default: one line on stderr per run of failures. */
  logger?: StoreLogger
  /** Any other `pg.Pool` option, applied last (it wins over the ones above). */
  poolConfig?: Record<string, unknown>
}

/** The defaults of {@link PostgresPoolOptions}. */
export const POSTGRES_POOL_DEFAULTS = {
  max: 10,
  connectTimeoutMs: 5_000,
  queryTimeoutMs: 5_000,
  idleTimeoutMs: 30_000,
} as const

/** The part of a `pg` pool (and its clients) this module uses: an event emitter. */
type Emitter = {
  on(event: string, listener: (...args: any[]) => void): unknown
  listenerCount(event: string): number
}
export type PgPoolLike = PostgresPool & Emitter

/**
 * The `pg.Pool` configuration for a URL with the defaults above, for apps that build the
 * pool themselves (`new pg.Pool(postgresPoolConfig(url))`, then {@link guardPostgresPool}).
 *
 * @example
 * ```ts
 * const pool = new pg.Pool(postgresPoolConfig(process.env.DATABASE_URL!, { max: 20 }))
 * ```
 */
export function postgresPoolConfig(url: string, options: PostgresPoolOptions = {}): Record<string, unknown> {
  const o = { ...POSTGRES_POOL_DEFAULTS, ...definedOnly(options) }
  return {
    connectionString: url,
    max: o.max,
    // pg-pool applies this both to opening a connection and to waiting for a free one.
    connectionTimeoutMillis: o.connectTimeoutMs,
    idleTimeoutMillis: o.idleTimeoutMs,
    ...(options.sendStatementTimeout !== false && { statement_timeout: o.queryTimeoutMs }),
    // The client-side limit is the backstop for a server that answers nothing; it comes a
    // little after the server's own, so normally the server cancels cleanly first.
    query_timeout: o.queryTimeoutMs + 1_000,
    // Finds connections whose peer vanished without a FIN (failover, cable, firewall).
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    ...options.poolConfig,
  }
}

/**
 * A `pg` pool for a URL, with the defaults of {@link PostgresPoolOptions}, guarded by
 * {@link guardPostgresPool}. `pg` is loaded here, so only PostgreSQL users need it.
 *
 * @example
 * ```ts
 * const pool = await createPostgresPool(process.env.DATABASE_URL!, { max: 20, logger })
 * const db = createPostgresKysely(pool)
 * ```
 */
export async function createPostgresPool(url: string, options: PostgresPoolOptions = {}): Promise<PostgresPool> {
  const { default: pg } = await import("pg")
  const pool = new pg.Pool(postgresPoolConfig(url, options)) as unknown as PgPoolLike
  return guardPostgresPool(pool, { logger: options.logger, warnWhenUnguarded: false })
}

/** Options of {@link guardPostgresPool}. */
export interface PostgresGuardOptions {
  /** Where connection errors go. Default: stderr, one line per run of failures. */
  logger?: StoreLogger
  /** Warn once when the pool has no `error` listener of its own. Default true. */
  warnWhenUnguarded?: boolean
}

/**
 * Makes a `pg` pool safe to give to Kysely:
 *
 * - an `error` listener on the pool (idle connections) and on every connection while a
 *   query holds it (pg-pool removes its own then, so a server restart under load would
 *   otherwise end the process with "Unhandled 'error' event");
 * - a connection whose query failed below SQL level (timeout, reset, FATAL) is destroyed
 *   on release rather than reused: after a client-side timeout its old query still
 *   occupies it;
 * - the errors are reported through `logger`, once per run of failures.
 *
 * When the pool had no `error` listener, warns once that it was missing (the guard adds
 * its own, so the process survives anyway).
 *
 * @example
 * ```ts
 * const pool = new pg.Pool(postgresPoolConfig(url))
 * const db = new Kysely<any>({ dialect: new PostgresDialect({ pool: guardPostgresPool(pool) }) })
 * ```
 */
export function guardPostgresPool(pool: PgPoolLike, options: PostgresGuardOptions = {}): PostgresPool {
  const logger = options.logger ?? consoleStoreLogger
  const report = failureReporter(logger, "PostgreSQL")
  if (pool.listenerCount("error") === 0 && options.warnWhenUnguarded !== false) {
    logger.warn(
      "PostgreSQL: the pool given to Portcullis has no 'error' listener; one was added so a lost connection " +
        "cannot end the process. Create it with createPostgresPool() or postgresPoolConfig() to also get timeouts (docs/reliability.md).",
    )
  }
  pool.on("error", report.failed)
  pool.on("connect", report.recovered)
  // Per pool, not per module: which clients already carry our listener.
  const listening = new WeakSet<object>()
  const listen = (client: Emitter): void => {
    if (listening.has(client)) return
    client.on("error", report.failed)
    listening.add(client)
  }
  // On `acquire`, which pg-pool emits synchronously just before it takes its idle listener
  // off the client: waiting for `connect()`'s promise leaves a gap of one parse loop, and a
  // server that shuts down sends its FATAL in the same packet as the new connection's
  // ReadyForQuery — an `error` event with no listener, the process's end.
  pool.on("acquire", listen)
  return {
    get options() {
      return pool.options
    },
    Client: pool.Client,
    async connect() {
      let client: PostgresPoolClient & Emitter
      try {
        client = (await pool.connect()) as PostgresPoolClient & Emitter
      } catch (error) {
        report.failed(error)
        throw error
      }
      // Also here, for a pool-like object that does not emit `acquire`.
      listen(client)
      return guardClient(client, report)
    },
    end: () => pool.end(),
  }
}

/** A checked-out client that remembers whether its connection is still trustworthy. */
function guardClient(client: PostgresPoolClient, report: FailureReporter): PostgresPoolClient {
  let broken = false
  const query = (...args: unknown[]): unknown => {
    const result = (client.query as (...a: unknown[]) => unknown)(...args)
    if (!(result instanceof Promise)) return result // a cursor: it reports its own errors
    return result.catch((error: unknown) => {
      if (!isStatementError(error)) {
        broken = true
        report.failed(error)
      }
      throw error
    })
  }
  return {
    get processID() {
      return client.processID
    },
    query: query as PostgresPoolClient["query"],
    release: (destroy?: boolean) => client.release(destroy || broken),
  }
}

/**
 * An error the server raised for one statement (constraint, syntax, its own timeout),
 * after which the connection is fine. FATAL and PANIC end the session; errors without a
 * severity come from the client side (timeout, reset, closed connection).
 */
function isStatementError(error: unknown): boolean {
  const severity = (error as { severity?: unknown } | null)?.severity
  return severity === "ERROR"
}

function definedOnly<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as Partial<T>
}
