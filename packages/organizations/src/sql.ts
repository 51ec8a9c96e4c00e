/**
 * `@portcullis/organizations/sql`: organizations on PostgreSQL, MySQL/MariaDB or SQLite
 * through Kysely — the store, its schema as migrations, and `migrate`, the entry
 * `portcullis migrate --with @portcullis/organizations` runs.
 *
 * @example
 * ```ts
 * import { createPostgresKysely, migrateToLatest } from "@portcullis/sql-adapter"
 * import { migrateOrganizations, sqlOrganizationStore } from "@portcullis/organizations/sql"
 *
 * const db = createPostgresKysely(process.env.DATABASE_URL!)
 * await migrateToLatest(db, { dialect: "postgres" })
 * await migrateOrganizations(db)
 * const store = sqlOrganizationStore(db)
 * ```
 * @module
 */
import type { Kysely } from "kysely"
import { migrateOrganizations } from "./sql/migrations.js"

export { sqlOrganizationStore } from "./sql/store.js"
export type { SqlOrganizationStoreOptions } from "./sql/store.js"
export { migrateOrganizations, organizationMigrations } from "./sql/migrations.js"
export type { MigrateOrganizationsOptions } from "./sql/migrations.js"
export { DEFAULT_ORGANIZATION_TABLES, detectDialect, organizationTables } from "./sql/tables.js"
export type { OrganizationSqlDialect, OrganizationTables } from "./sql/tables.js"

/**
 * The extension migration contract of `portcullis migrate --with <package>`: the package's
 * `/sql` entry exports `migrate(db, { tablePrefix })`, which applies its schema (dialect
 * from the Kysely instance) and returns the names of the migrations it applied.
 *
 * @example
 * ```ts
 * const applied = await migrate(db, { tablePrefix: "auth_" }) // ["0001_organizations"], then []
 * ```
 */
export function migrate(db: Kysely<any>, options: { tablePrefix?: string } = {}): Promise<string[]> {
  return migrateOrganizations(db, { tablePrefix: options.tablePrefix })
}
