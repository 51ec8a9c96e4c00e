/**
 * Table names and the dialect of the SQL organization store.
 * @module
 */
import { MysqlAdapter, PostgresAdapter, SqliteAdapter, type Kysely } from "kysely"

/** The SQL dialects the schema is written for (as `@portcullis/sql-adapter`'s). */
export type OrganizationSqlDialect = "postgres" | "mysql" | "sqlite"

/** Names of the four tables. */
export interface OrganizationTables {
  organizations: string
  members: string
  invitations: string
  /** The active organization of each session. */
  active: string
  /** Where applied migrations are recorded (plus `_lock`): apart from the SQL adapter's. */
  migrations: string
}

/** Default table names; `tablePrefix` goes in front of each. */
export const DEFAULT_ORGANIZATION_TABLES: Readonly<OrganizationTables> = Object.freeze({
  organizations: "organizations",
  members: "organization_members",
  invitations: "organization_invitations",
  active: "organization_active",
  migrations: "portcullis_organizations_migrations",
})

/**
 * The table names for `prefix` (`""` for none), checked: names end up in index and
 * constraint names, so they stay plain identifiers.
 *
 * @example
 * ```ts
 * organizationTables("auth_").members // "auth_organization_members"
 * ```
 */
export function organizationTables(prefix = ""): OrganizationTables {
  if (prefix && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(prefix)) {
    throw new TypeError(`tablePrefix takes letters, digits and _ only, not starting with a digit (got ${JSON.stringify(prefix)})`)
  }
  return Object.fromEntries(Object.entries(DEFAULT_ORGANIZATION_TABLES).map(([key, name]) => [key, `${prefix}${name}`])) as unknown as OrganizationTables
}

/** The dialect of a Kysely instance, from its adapter; `undefined` for a dialect Kysely does not ship. */
export function detectDialect(db: Kysely<any>): OrganizationSqlDialect | undefined {
  const adapter = db.getExecutor().adapter
  if (adapter instanceof PostgresAdapter) return "postgres"
  if (adapter instanceof MysqlAdapter) return "mysql"
  if (adapter instanceof SqliteAdapter) return "sqlite"
  return undefined
}

/** `options.dialect`, or the detected one; a `TypeError` naming the option when neither. */
export function resolveDialect(db: Kysely<any>, given?: OrganizationSqlDialect): OrganizationSqlDialect {
  const dialect = given ?? detectDialect(db)
  if (!dialect) throw new TypeError("cannot tell this Kysely instance's SQL dialect: pass { dialect: \"postgres\" | \"mysql\" | \"sqlite\" }")
  return dialect
}
