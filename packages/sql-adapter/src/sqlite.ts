/**
 * SQLite through Node's built-in `node:sqlite`, so SQLite needs no native addon.
 * Kysely's SqliteDialect expects the better-sqlite3 shape; this is a thin shim over
 * `DatabaseSync` that provides it.
 *
 * `node:sqlite` is looked up when a SQLite database is opened, never imported: the
 * package's entry must load on runtimes without it (Bun; Workers with `nodejs_compat`)
 * for apps on PostgreSQL or MySQL.
 * @module
 */
import type { DatabaseSync, SQLInputValue, StatementSync } from "node:sqlite"
import { Kysely, SqliteDialect, type KyselyConfig, type SqliteDatabase, type SqliteStatement } from "kysely"
import { InvalidConfig } from "@portcullis/core/errors"
import { attachDirectReader, type DirectReader } from "./direct-read.js"

type NodeSqlite = typeof import("node:sqlite")

/** `node:sqlite` of this runtime; an `InvalidConfig` naming the way out when it has none. */
function nodeSqlite(): NodeSqlite {
  const lookup = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule
  const module = lookup?.("node:sqlite") as NodeSqlite | undefined
  if (!module?.DatabaseSync) {
    throw new InvalidConfig("SQLite through createSqliteKysely needs node:sqlite (Node 22.13+), which this runtime does not have. Use PostgreSQL or MySQL, or build Kysely on this runtime's own SQLite driver and pass it to SqlAdapter.")
  }
  return module
}

/**
 * `node:sqlite` binds only null, numbers, bigints, strings and bytes. Dates become ISO
 * 8601 text (UTC, millisecond precision: sorts as text and SQLite's date functions read
 * it) and booleans become 0/1, matching how the schema declares those columns.
 */
function toSqlite(value: unknown): SQLInputValue {
  if (value === undefined || value === null) return null
  if (value instanceof Date) return value.toISOString()
  if (typeof value === "boolean") return value ? 1 : 0
  if (
    typeof value === "number" || typeof value === "bigint" || typeof value === "string" ||
    ArrayBuffer.isView(value)
  ) {
    return value as SQLInputValue
  }
  throw new TypeError(`cannot bind a ${typeof value} parameter to SQLite`)
}

/** Kysely's parameters as `node:sqlite` binds them. */
const bind = (parameters: readonly unknown[]): SQLInputValue[] => parameters.map(toSqlite)

type Row = Record<string, unknown>

/** How many statements Kysely is stepping through row by row (`stream()`) on a connection. */
interface OpenIterations {
  count: number
}

function wrapStatement(statement: StatementSync, iterations: OpenIterations): SqliteStatement {
  return {
    // A statement that yields columns (SELECT, or any statement with RETURNING) is a reader.
    reader: statement.columns().length > 0,
    all: (parameters) => statement.all(...bind(parameters)),
    run: (parameters) => statement.run(...bind(parameters)),
    iterate: (parameters) => counted(statement.iterate(...bind(parameters)), iterations),
  }
}

/**
 * `rows`, counted in `iterations` until it is done, has thrown or was closed (`return`,
 * which a `for…of` left early and Kysely's stream both call). While a statement is part
 * way through its rows, SQLite keeps the connection's read transaction open, outside any
 * BEGIN (`isTransaction` stays `false`): every other statement on the connection reads the
 * database as it was when the first row was read, not what other connections committed
 * since.
 */
function counted<T>(rows: IterableIterator<T>, iterations: OpenIterations): IterableIterator<T> {
  let open = true
  iterations.count++
  const close = () => {
    if (open) {
      open = false
      iterations.count--
    }
  }
  return {
    [Symbol.iterator]() {
      return this
    },
    next() {
      try {
        const result = rows.next()
        if (result.done) close()
        return result
      } catch (error) {
        close()
        throw error
      }
    },
    return(value?: unknown) {
      close()
      return rows.return?.(value) ?? { done: true, value: value as T }
    },
  }
}

/**
 * A read-only statement run for the direct reader. Its rows come from `node:sqlite` as
 * arrays and are named here, which costs less than `node:sqlite` building each row object
 * itself (≈ 2 µs of a nine-column row's 9). Only for a statement that names each of its
 * columns: with a `*`, SQLite preparing the kept statement again after a schema change
 * could widen or reorder the row under names read once; a statement with a `*` (or a
 * `__proto__` column, which plain assignment cannot set; or on a `node:sqlite` before
 * 22.16) gets the native row objects.
 */
function directRead(statement: StatementSync, sql: string): (parameters: readonly unknown[]) => Row[] {
  const names = statement.columns().map((column) => column.name)
  if (names.length === 0) throw new TypeError("a direct read must be a statement that yields rows")
  if (sql.includes("*") || names.includes("__proto__") || typeof statement.setReturnArrays !== "function") {
    return (parameters) => statement.all(...bind(parameters)) as Row[]
  }
  statement.setReturnArrays(true)
  const named = (values: unknown): Row => {
    const array = values as unknown[]
    const row: Row = {}
    for (let i = 0; i < names.length; i++) row[names[i]!] = array[i]
    return row
  }
  return (parameters) => statement.all(...bind(parameters)).map(named)
}

/**
 * Adapts a `node:sqlite` `DatabaseSync` to the interface Kysely's `SqliteDialect` takes.
 *
 * @example
 * ```ts
 * import { DatabaseSync } from "node:sqlite"
 * import { Kysely, SqliteDialect } from "kysely"
 *
 * const db = new Kysely<any>({ dialect: new SqliteDialect({ database: nodeSqliteDatabase(new DatabaseSync("auth.db")) }) })
 * ```
 */
export function nodeSqliteDatabase(database: DatabaseSync): SqliteDatabase {
  return new SqliteConnection(database).kysely
}

/**
 * One `node:sqlite` connection: the interface Kysely's `SqliteDialect` takes, and the
 * direct reader `SqlAdapter` uses for session rows, each with its own statement cache.
 */
class SqliteConnection {
  // Preparing is a large share of a small query's cost, and an adapter issues the same few
  // statements over and over: keep them. Reuse is safe because `all` and `run` finish
  // synchronously; SQLite re-prepares a kept statement by itself after a schema change.
  readonly #statements = new Map<string, SqliteStatement>()
  /** The direct reads' own statements: a statement returning arrays must not serve Kysely. */
  readonly #directReads = new Map<string, (parameters: readonly unknown[]) => Row[]>()
  readonly #database: DatabaseSync
  /**
   * Statements part way through their rows (a Kysely `stream()`): each holds a read
   * transaction open on the connection, in which a direct read would see an old snapshot;
   * Kysely's road waits for the stream, which holds the connection.
   */
  readonly #iterations: OpenIterations = { count: 0 }

  constructor(database: DatabaseSync) {
    this.#database = database
  }

  readonly kysely: SqliteDatabase = {
    prepare: (sql) => this.#prepare(sql),
    close: () => {
      this.#statements.clear()
      this.#directReads.clear()
      this.#database.close()
    },
  }

  /**
   * Reads now, outside Kysely's queue, unless a transaction is open on the connection
   * (Kysely holds its connection mutex for the whole transaction, across awaits, and a
   * read run beside it here would see its uncommitted writes) or a stream is part way
   * through its rows (Kysely holds the connection for it too, and SQLite keeps its read
   * transaction open: a read here would see the database as it was when the stream began,
   * without what other connections committed since — a session revoked elsewhere would
   * still be found). Otherwise nothing is half-done: every other statement of
   * `node:sqlite` runs to its end synchronously, so the read sees what is committed — what
   * a read queued through Kysely would see on an idle connection. `undefined` without
   * `isTransaction` (before Node 22.16): the caller queues through Kysely.
   */
  readonly reader: DirectReader = {
    read: (sql, parameters) => {
      if (this.#database.isTransaction !== false || this.#iterations.count > 0) return undefined
      return kept(this.#directReads, sql, this.#prepareDirectRead)(parameters)
    },
  }

  // Made once, not per call: the direct read is on every session check.
  readonly #prepareDirectRead = (sql: string) => directRead(this.#database.prepare(sql), sql)
  readonly #prepareStatement = (sql: string) => wrapStatement(this.#database.prepare(sql), this.#iterations)

  #prepare(sql: string): SqliteStatement {
    return kept(this.#statements, sql, this.#prepareStatement)
  }
}

const STATEMENT_CACHE_LIMIT = 256

/** The statement `cache` keeps for `sql`, prepared by `prepare` on a miss; past the limit the oldest goes. */
function kept<S>(cache: Map<string, S>, sql: string, prepare: (sql: string) => S): S {
  let statement = cache.get(sql)
  if (statement === undefined) {
    statement = prepare(sql)
    if (cache.size >= STATEMENT_CACHE_LIMIT) cache.delete(cache.keys().next().value!)
    cache.set(sql, statement)
  }
  return statement
}

/**
 * Opens (creating if needed) a SQLite file through `node:sqlite` and wraps it in Kysely.
 * Turns on foreign keys (off by default in SQLite, and the schema's cascades need them),
 * WAL journaling and a busy timeout.
 *
 * @param filename Path of the database file, or `:memory:`.
 * @param config Other Kysely options, such as `log`.
 * @example
 * ```ts
 * import { createSqliteKysely, migrateToLatest, SqlAdapter } from "@portcullis/sql-adapter"
 *
 * const db = createSqliteKysely("auth.db")
 * await migrateToLatest(db, { dialect: "sqlite" })
 * const adapter = SqlAdapter(db)
 * ```
 */
export function createSqliteKysely(filename: string, config: Omit<KyselyConfig, "dialect"> = {}): Kysely<any> {
  const database = new (nodeSqlite().DatabaseSync)(filename)
  database.exec("PRAGMA foreign_keys = ON")
  database.exec("PRAGMA busy_timeout = 5000")
  if (filename !== ":memory:") database.exec("PRAGMA journal_mode = WAL")
  const connection = new SqliteConnection(database)
  const db = new Kysely<any>({ ...config, dialect: new SqliteDialect({ database: connection.kysely }) })
  // A direct read passes neither plugins nor the query log: only without them.
  if (!config.log && !config.plugins?.length) attachDirectReader(db, connection.reader)
  return db
}
