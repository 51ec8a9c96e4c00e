/**
 * `@portcullis/admin/sql`: bans and impersonations on PostgreSQL, MySQL/MariaDB or SQLite
 * through Kysely — the stores, their migrations, and `migrate`, the entry `portcullis migrate --with @portcullis/admin` runs.
 *
 * @example
 * ```ts
 * import { createPostgresKysely } from "@portcullis/sql-adapter"
 * import { migrateAdmin, sqlBanStore, sqlImpersonationStore } from "@portcullis/admin/sql"
 *
 * const db = createPostgresKysely(process.env.DATABASE_URL!)
 * await migrateAdmin(db)
 * admin({ store: sqlBanStore(db), roles: ["admin"], impersonation: { store: sqlImpersonationStore(db) } })
 * ```
 * @module
 */
import type { Kysely } from "kysely"
import { migrateAdmin } from "./sql/migrations.js"
import { SqlBanStore, type SqlBanStoreOptions } from "./sql/store.js"
import { SqlImpersonationStore, type SqlImpersonationStoreOptions } from "./sql/impersonations.js"
import type { BanStore } from "./store/types.js"
import type { ImpersonationStore } from "./store/impersonations.js"

export { migrateAdmin, adminMigrations } from "./sql/migrations.js"
export { SqlBanStore, banTable, type BanSqlDialect, type SqlBanStoreOptions } from "./sql/store.js"
export { SqlImpersonationStore, impersonationTable, type SqlImpersonationStoreOptions } from "./sql/impersonations.js"

/** A ban store in `db`'s `<tablePrefix>admin_bans` table. */
export function sqlBanStore(db: Kysely<any>, options: SqlBanStoreOptions = {}): BanStore {
  return new SqlBanStore(db, options)
}

/**
 * An impersonation store in `db`'s `<tablePrefix>admin_impersonations` table (created by
 * `migrateAdmin`): shared by every instance on that database, so an impersonation started on
 * one is shown, limited and ended on all.
 *
 * @example
 * ```ts
 * admin({ store: sqlBanStore(db), roles: ["admin"], impersonation: { store: sqlImpersonationStore(db) } })
 * ```
 */
export function sqlImpersonationStore(db: Kysely<any>, options: SqlImpersonationStoreOptions = {}): ImpersonationStore {
  return new SqlImpersonationStore(db, options)
}

/** The extension migration contract of `portcullis migrate --with @portcullis/admin`. */
export function migrate(db: Kysely<any>, options: { tablePrefix?: string } = {}): Promise<string[]> {
  return migrateAdmin(db, { ...(options.tablePrefix !== undefined && { tablePrefix: options.tablePrefix }) })
}
