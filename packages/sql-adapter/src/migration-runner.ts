/**
 * The one migration runner of every Portcullis SQL schema: the adapter's own and each
 * extension's (organizations, SSO, admin, OpenID Provider, and third-party extensions).
 * It imports Kysely only, never a driver, so an extension's `/sql` entry can use it without
 * loading `pg` or `mysql2`.
 * @module
 */
import { MysqlAdapter, PostgresAdapter, SqliteAdapter, type Kysely } from "kysely"
import type { Migration } from "kysely/migration"
import { migrateUnderLock } from "./migration-lock.js"
import type { SqlDialect } from "./tables.js"

/** Options of {@link runMigrations}. */
export interface RunMigrationsOptions {
  /** The schema's migrations by name; names sort in the order they run. */
  migrations: Record<string, Migration>
  /** Where applied migrations are recorded, one table per schema (plus `<table>_lock` off PostgreSQL). */
  table: string
  /** Told from the Kysely instance's adapter when not given (PostgreSQL, MySQL/MariaDB, SQLite). */
  dialect?: SqlDialect
  /** Names the schema in the error thrown, e.g. `"organizations"` gives "organizations migration 0001_… failed". */
  label?: string
}

/**
 * Applies the migrations of `options.migrations` that `options.table` does not record yet,
 * in name order. Safe on every start of every instance: on PostgreSQL the run is one
 * transaction under `pg_advisory_xact_lock` ({@link migrateUnderLock}), which holds behind
 * PgBouncer in transaction pooling mode — one instance applies, the others wait and then find
 * the migrations applied, and the lock ends with the transaction whatever happens to the
 * client. MySQL/MariaDB and SQLite use Kysely's migration lock (no transaction pooler there).
 *
 * @returns the names of the migrations this call applied (empty when up to date).
 * @throws the first failed migration's error, wrapped; on PostgreSQL nothing of the run is
 *   kept, elsewhere the migrations before it stay applied.
 * @example
 * ```ts
 * // my-extension/src/sql.ts
 * import { runMigrations } from "@portcullis/sql-adapter/migrations"
 *
 * export function migrate(db: Kysely<any>, options: { tablePrefix?: string } = {}): Promise<string[]> {
 *   const prefix = options.tablePrefix ?? ""
 *   return runMigrations(db, { migrations: myMigrations(prefix), table: `${prefix}my_extension_migrations`, label: "my-extension" })
 * }
 * ```
 */
export async function runMigrations(db: Kysely<any>, options: RunMigrationsOptions): Promise<string[]> {
  const dialect = options.dialect ?? detectDialect(db)
  if (!dialect) throw new TypeError("cannot tell this Kysely instance's SQL dialect: pass { dialect: \"postgres\" | \"mysql\" | \"sqlite\" }")
  const props = {
    provider: { getMigrations: async () => options.migrations },
    migrationTableName: options.table,
    migrationLockTableName: `${options.table}_lock`,
  }
  const what = options.label ? `${options.label} migration` : "migration"
  for (let attempt = 1; ; attempt++) {
    const { error, results = [] } = await migrateUnderLock(db, dialect, props)
    if (!error) return results.filter((r) => r.status === "Success").map((r) => r.migrationName)
    const failed = results.find((r) => r.status === "Error")?.migrationName
    // Kysely's migrator finds its own table by listing every table of the schema, then
    // reading each one's columns: a table that anything else in the database drops in
    // between fails the listing. Nothing has run yet, so the setup is simply tried again.
    if (failed === undefined && attempt < SETUP_ATTEMPTS && isUndefinedTable(error)) {
      // A database where tables come and go often (tests, several apps) can fail the listing
      // again at once; a short, growing pause lets the other side's DDL finish.
      await new Promise((resolve) => setTimeout(resolve, 20 * attempt))
      continue
    }
    throw new Error(`${what} ${failed ?? "(setup)"} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error })
  }
}

const SETUP_ATTEMPTS = 8

/** PostgreSQL's `undefined_table`, MySQL's `ER_NO_SUCH_TABLE`, SQLite's "no such table". */
function isUndefinedTable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return code === "42P01" || code === "ER_NO_SUCH_TABLE" || (error instanceof Error && /^no such table/.test(error.message))
}

/** The dialect of a Kysely instance, from its adapter; `undefined` for one Kysely does not ship. */
function detectDialect(db: Kysely<any>): SqlDialect | undefined {
  const adapter = db.getExecutor().adapter
  if (adapter instanceof PostgresAdapter) return "postgres"
  if (adapter instanceof MysqlAdapter) return "mysql"
  if (adapter instanceof SqliteAdapter) return "sqlite"
  return undefined
}
