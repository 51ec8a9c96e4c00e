/**
 * Kysely instances for PostgreSQL and MySQL/MariaDB from a URL or an existing pool.
 * The drivers are optional peer dependencies, loaded only when a connection is first
 * needed, so SQLite users do not have to install them.
 * @module
 */
import { Kysely, MysqlDialect, PostgresDialect, type KyselyConfig, type MysqlPool, type PostgresPool } from "kysely"
import { createMysqlPool, guardMysqlPool, type MysqlPoolOptions } from "./mysql-pool.js"
import { createPostgresPool, guardPostgresPool, type PostgresPoolOptions } from "./postgres-pool.js"
import { createSqliteKysely } from "./sqlite.js"
import type { SqlDialect } from "./tables.js"
import { parseDatabaseUrl } from "./url.js"

/**
 * Kysely options, plus `pool`: the pool options for a URL (for a pool you pass, only
 * `pool.logger` applies).
 */
export type PostgresKyselyConfig = Omit<KyselyConfig, "dialect"> & { pool?: PostgresPoolOptions }
/**
 * Kysely options, plus `pool`: the pool options for a URL (for a pool you pass,
 * `acquireTimeoutMs`, `queryTimeoutMs` and `logger` apply: the guard enforces those).
 */
export type MysqlKyselyConfig = Omit<KyselyConfig, "dialect"> & { pool?: MysqlPoolOptions }

/**
 * A Kysely instance on PostgreSQL (driver: `pg`).
 *
 * From a URL, the pool has bounded times and survives server restarts: at most 10
 * connections, 5 s to connect or to wait for a free connection, 5 s per statement, every
 * connection error handled and logged once per outage ({@link PostgresPoolOptions}).
 * A pool you pass is guarded the same way ({@link guardPostgresPool}) but keeps its own
 * timeouts; a warning says so when it has no `error` listener.
 *
 * @param urlOrPool A `postgres://` URL, or a `pg` `Pool` you configured yourself.
 * @param config Other Kysely options, such as `log`, and `pool` options for a URL.
 * @example
 * ```ts
 * const db = createPostgresKysely(process.env.DATABASE_URL!, { pool: { max: 20, queryTimeoutMs: 8_000 } })
 * await migrateToLatest(db, { dialect: "postgres" })
 * ```
 */
export function createPostgresKysely(urlOrPool: string | PostgresPool, config: PostgresKyselyConfig = {}): Kysely<any> {
  const { pool: poolOptions, ...kysely } = config
  const pool = typeof urlOrPool === "string"
    ? () => createPostgresPool(urlOrPool, poolOptions)
    : isEmitter(urlOrPool) ? guardPostgresPool(urlOrPool, { logger: poolOptions?.logger }) : urlOrPool
  return new Kysely<any>({ ...kysely, dialect: new PostgresDialect({ pool }) })
}

/**
 * A Kysely instance on MySQL or MariaDB (driver: `mysql2`).
 *
 * A pool made from a URL uses `timezone: "Z"`, so `datetime` columns hold UTC whatever
 * the server's or the process's time zone. Pass the same option if you bring your own
 * pool, or dates shift by your UTC offset. It also has bounded times and survives server
 * restarts: 10 connections, 5 s to connect, 5 s to wait for a free one, 5 s per query,
 * every connection error handled and logged once per outage ({@link MysqlPoolOptions}).
 * A pool you pass is guarded the same way ({@link guardMysqlPool}).
 *
 * @param urlOrPool A `mysql://` URL, or a `mysql2` (callback API) pool.
 * @param config Other Kysely options, such as `log`, and `pool` options.
 * @example
 * ```ts
 * const db = createMysqlKysely("mysql://root@127.0.0.1:3306/app")
 * await migrateToLatest(db, { dialect: "mysql" })
 * ```
 */
export function createMysqlKysely(urlOrPool: string | MysqlPool, config: MysqlKyselyConfig = {}): Kysely<any> {
  const { pool: poolOptions, ...kysely } = config
  const pool = typeof urlOrPool === "string"
    ? () => createMysqlPool(urlOrPool, poolOptions)
    : isEmitter(urlOrPool) ? guardMysqlPool(urlOrPool, poolOptions) : urlOrPool
  return new Kysely<any>({ ...kysely, dialect: new MysqlDialect({ pool }) })
}

/** Whether a pool can take listeners (a real `pg`/`mysql2` pool, not a hand-made stand-in). */
function isEmitter<T extends object>(pool: T): pool is T & { on(event: string, listener: (...args: any[]) => void): unknown; listenerCount(event: string): number } {
  const p = pool as { on?: unknown; listenerCount?: unknown }
  return typeof p.on === "function" && typeof p.listenerCount === "function"
}

/**
 * Opens a Kysely instance for a database URL (see {@link parseDatabaseUrl}).
 *
 * @example
 * ```ts
 * const { db, dialect } = connectUrl(process.env.DATABASE_URL!)
 * await migrateToLatest(db, { dialect })
 * ```
 */
export function connectUrl(url: string, config: Omit<KyselyConfig, "dialect"> & { pool?: PostgresPoolOptions & MysqlPoolOptions } = {}): { db: Kysely<any>; dialect: SqlDialect } {
  const { dialect, target } = parseDatabaseUrl(url)
  const db = dialect === "postgres" ? createPostgresKysely(target, config)
    : dialect === "mysql" ? createMysqlKysely(target, config)
    : createSqliteKysely(target, withoutPool(config))
  return { db, dialect }
}

function withoutPool<T extends { pool?: unknown }>(config: T): Omit<T, "pool"> {
  const { pool: _ignored, ...rest } = config
  return rest
}
