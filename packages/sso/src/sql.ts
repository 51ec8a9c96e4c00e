/**
 * `@portcullis/sso/sql`: SSO state on PostgreSQL, MySQL/MariaDB or SQLite through Kysely —
 * the store, its schema as migrations, and `migrate`, the entry
 * `portcullis migrate --with @portcullis/sso` runs.
 *
 * @example
 * ```ts
 * import { createPostgresKysely } from "@portcullis/sql-adapter"
 * import { migrateSso, sqlSsoStore } from "@portcullis/sso/sql"
 *
 * const db = createPostgresKysely(process.env.DATABASE_URL!)
 * await migrateSso(db)
 * const store = sqlSsoStore(db)
 * ```
 * @module
 */
import type { Kysely } from "kysely"
import { migrateSso } from "./sql/migrations.js"

export { sqlSsoStore } from "./sql/store.js"
export type { SqlSsoStoreOptions } from "./sql/store.js"
export { migrateSso, ssoMigrations } from "./sql/migrations.js"
export type { MigrateSsoOptions } from "./sql/migrations.js"
export { DEFAULT_SSO_TABLES, detectSsoDialect, ssoTables } from "./sql/tables.js"
export type { SsoSqlDialect, SsoTables } from "./sql/tables.js"

/**
 * The extension migration contract of `portcullis migrate --with <package>`: applies the SSO
 * schema (dialect from the Kysely instance) and returns the names of the migrations it applied.
 *
 * @example
 * ```ts
 * const applied = await migrate(db, { tablePrefix: "auth_" }) // ["0001_sso"], then []
 * ```
 */
export function migrate(db: Kysely<any>, options: { tablePrefix?: string } = {}): Promise<string[]> {
  return migrateSso(db, { tablePrefix: options.tablePrefix })
}
