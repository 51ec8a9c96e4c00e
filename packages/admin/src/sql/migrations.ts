/**
 * The ban and impersonation tables as versioned migrations, recorded in a migration table of its own
 * (`<tablePrefix>admin_migrations`) so it runs beside the SQL adapter's, in any order.
 * Never edit a released migration: add a new one.
 * @module
 */
import { sql, type Kysely } from "kysely"
import { Migrator, type Migration } from "kysely/migration"
import { impersonationTable } from "./impersonations.js"
import { banDialect, banTable, type BanSqlDialect } from "./store.js"

/** The migrations, by name. */
export function adminMigrations(dialect: BanSqlDialect, tablePrefix = ""): Record<string, Migration> {
  const table = banTable(tablePrefix)
  const impersonations = impersonationTable(tablePrefix)
  // MySQL: binary collation, so ids and keys compare exactly, as on the other databases.
  const exact = sql`engine = InnoDB default character set utf8mb4 collate utf8mb4_bin`
  return {
    "0001_admin_bans": {
      async up(db) {
        let create = db.schema
          .createTable(table)
          .addColumn("user_id", "varchar(255)", (c) => c.primaryKey())
          .addColumn("reason", "varchar(500)", (c) => c.notNull())
          .addColumn("banned_by", "varchar(255)", (c) => c.notNull())
          .addColumn("banned_at", "bigint", (c) => c.notNull())
          .addColumn("expires", "bigint")
        if (dialect === "mysql") create = create.modifyEnd(exact)
        await create.execute()
      },
      async down(db) {
        await db.schema.dropTable(table).execute()
      },
    },
    "0002_admin_impersonations": {
      async up(db) {
        let create = db.schema
          .createTable(impersonations)
          // MySQL/MariaDB compare `varchar` with trailing spaces ignored (PAD SPACE, even in
          // utf8mb4_bin), so "k " would read and overwrite "k"'s record: bytes compare exactly.
          .addColumn("session_key", dialect === "mysql" ? "varbinary(255)" : "varchar(255)", (c) => c.primaryKey())
          .addColumn("user_id", "varchar(255)", (c) => c.notNull())
          .addColumn("by_id", "varchar(255)", (c) => c.notNull())
          .addColumn("by_email", "varchar(320)")
          .addColumn("started_at", "bigint", (c) => c.notNull())
          .addColumn("until_at", "bigint", (c) => c.notNull())
          .addColumn("ended_at", "bigint")
          // When the record may be forgotten: reads ignore rows past it, writes prune them.
          .addColumn("keep_until", "bigint", (c) => c.notNull())
        if (dialect === "mysql") create = create.modifyEnd(exact)
        await create.execute()
        await db.schema.createIndex(`${impersonations}_keep_until`).on(impersonations).column("keep_until").execute()
      },
      async down(db) {
        await db.schema.dropTable(impersonations).execute()
      },
    },
  }
}

/** Applies the admin console's migrations; returns the names applied (`[]` when up to date). */
export async function migrateAdmin(db: Kysely<any>, options: { tablePrefix?: string; dialect?: BanSqlDialect } = {}): Promise<string[]> {
  const dialect = banDialect(db, options.dialect)
  const name = `${options.tablePrefix ?? ""}admin_migrations`
  const migrator = new Migrator({ db, provider: { getMigrations: async () => adminMigrations(dialect, options.tablePrefix) }, migrationTableName: name, migrationLockTableName: `${name}_lock` })
  for (let attempt = 1; ; attempt++) {
    const { error, results = [] } = await migrator.migrateToLatest()
    if (!error) return results.filter((r) => r.status === "Success").map((r) => r.migrationName)
    const failed = results.find((r) => r.status === "Error")?.migrationName
    // Kysely's migrator finds its table by listing the schema's tables, then each one's
    // columns: a table another client drops in between (another app, a test run) fails that
    // setup before any migration ran, so trying again is safe — as the other migrators do.
    if (failed === undefined && attempt < SETUP_ATTEMPTS && isUndefinedTable(error)) {
      await new Promise((resolve) => setTimeout(resolve, 20 * attempt))
      continue
    }
    throw new Error(`admin migration failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error })
  }
}

const SETUP_ATTEMPTS = 8

/** PostgreSQL's undefined_table (42P01), MySQL's ER_NO_SUCH_TABLE, SQLite's "no such table". */
function isUndefinedTable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return code === "42P01" || code === "ER_NO_SUCH_TABLE" || (error instanceof Error && /^no such table/.test(error.message))
}
