/**
 * The ban and impersonation tables as versioned migrations, recorded in a migration table of its own
 * (`<tablePrefix>admin_migrations`) so it runs beside the SQL adapter's, in any order.
 * Never edit a released migration: add a new one.
 * @module
 */
import { sql, type Kysely } from "kysely"
import type { Migration } from "kysely/migration"
import { runMigrations } from "@portcullis/sql-adapter/migrations"
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

/**
 * Applies the admin console's migrations; returns the names applied (`[]` when up to date).
 * Safe on every start of every instance, also behind PgBouncer in transaction pooling mode
 * (`runMigrations` of `@portcullis/sql-adapter/migrations`).
 *
 * @example
 * ```ts
 * await migrateAdmin(db, { tablePrefix: "auth_" })
 * ```
 */
export async function migrateAdmin(db: Kysely<any>, options: { tablePrefix?: string; dialect?: BanSqlDialect } = {}): Promise<string[]> {
  const dialect = banDialect(db, options.dialect)
  return runMigrations(db, { migrations: adminMigrations(dialect, options.tablePrefix), table: `${options.tablePrefix ?? ""}admin_migrations`, dialect, label: "admin" })
}
