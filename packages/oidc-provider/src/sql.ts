/**
 * `@portcullis/oidc-provider/sql`: the OpenID Provider's state on PostgreSQL, MySQL/MariaDB or
 * SQLite through Kysely — the store, its schema as migrations, and `migrate`, the entry
 * `portcullis migrate --with @portcullis/oidc-provider` runs.
 *
 * @example
 * ```ts
 * import { createPostgresKysely } from "@portcullis/sql-adapter"
 * import { migrateOidcProvider, sqlOidcProviderStore } from "@portcullis/oidc-provider/sql"
 *
 * const db = createPostgresKysely(process.env.DATABASE_URL!)
 * await migrateOidcProvider(db, { tablePrefix: "auth_" })
 * const store = sqlOidcProviderStore(db, { tablePrefix: "auth_" })
 * ```
 * @module
 */
import type { Kysely } from "kysely"
import { migrateOidcProvider } from "./sql/migrations.js"

export { sqlOidcProviderStore } from "./sql/store.js"
export type { SqlOidcProviderStoreOptions } from "./sql/store.js"
export { migrateOidcProvider, oidcProviderMigrations } from "./sql/migrations.js"
export type { MigrateOidcProviderOptions } from "./sql/migrations.js"
export { DEFAULT_OIDC_PROVIDER_TABLES, detectOidcProviderDialect, oidcProviderTables } from "./sql/tables.js"
export type { OidcProviderSqlDialect, OidcProviderTables } from "./sql/tables.js"

/**
 * The extension migration contract of `portcullis migrate --with <package>`: applies the
 * OpenID Provider schema (dialect from the Kysely instance) and returns the names of the
 * migrations it applied.
 *
 * @example
 * ```ts
 * const applied = await migrate(db, { tablePrefix: "auth_" }) // ["0001_oidc_provider"], then []
 * ```
 */
export function migrate(db: Kysely<any>, options: { tablePrefix?: string } = {}): Promise<string[]> {
  return migrateOidcProvider(db, { tablePrefix: options.tablePrefix })
}
