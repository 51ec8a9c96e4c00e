/**
 * `@portcullis/admin/sql`: bans on PostgreSQL, MySQL/MariaDB or SQLite through Kysely — the
 * store, its migration, and `migrate`, the entry `portcullis migrate --with @portcullis/admin` runs.
 *
 * @example
 * ```ts
 * import { createPostgresKysely } from "@portcullis/sql-adapter"
 * import { migrateAdmin, sqlBanStore } from "@portcullis/admin/sql"
 *
 * const db = createPostgresKysely(process.env.DATABASE_URL!)
 * await migrateAdmin(db)
 * const store = sqlBanStore(db)
 * ```
 * @module
 */
import type { Kysely } from "kysely"
import { migrateAdmin } from "./sql/migrations.js"
import { SqlBanStore, type SqlBanStoreOptions } from "./sql/store.js"
import type { BanStore } from "./store/types.js"

export { migrateAdmin, adminMigrations } from "./sql/migrations.js"
export { SqlBanStore, banTable, type BanSqlDialect, type SqlBanStoreOptions } from "./sql/store.js"

/** A ban store in `db`'s `<tablePrefix>admin_bans` table. */
export function sqlBanStore(db: Kysely<any>, options: SqlBanStoreOptions = {}): BanStore {
  return new SqlBanStore(db, options)
}

/** The extension migration contract of `portcullis migrate --with @portcullis/admin`. */
export function migrate(db: Kysely<any>, options: { tablePrefix?: string } = {}): Promise<string[]> {
  return migrateAdmin(db, { ...(options.tablePrefix !== undefined && { tablePrefix: options.tablePrefix }) })
}
