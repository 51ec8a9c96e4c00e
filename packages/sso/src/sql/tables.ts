/**
 * Table names and the dialect of the SQL SSO store.
 * @module
 */
import { MysqlAdapter, PostgresAdapter, SqliteAdapter, type Kysely } from "kysely"

/** The SQL dialects the schema is written for (as `@portcullis/sql-adapter`'s). */
export type SsoSqlDialect = "postgres" | "mysql" | "sqlite"

/** Names of the SSO tables. */
export interface SsoTables {
  connections: string
  /** Every claim of a domain, one row per (domain, organization). */
  domains: string
  /**
   * One row per verified domain, keyed by the domain alone: its primary key is what keeps a
   * domain verified by one organization at most. A partial unique index on `domains` would
   * say the same, but MariaDB/MySQL have none.
   */
  verifiedDomains: string
  scimTokens: string
  scimUsers: string
  scimGroups: string
  /** Single-use records (`useOnce`) and values kept to be taken once (`put`/`take`). */
  once: string
  sessions: string
  /** Where applied migrations are recorded (plus `_lock`): apart from the SQL adapter's. */
  migrations: string
}

/** Default table names; `tablePrefix` goes in front of each. */
export const DEFAULT_SSO_TABLES: Readonly<SsoTables> = Object.freeze({
  connections: "sso_connections",
  domains: "sso_domains",
  verifiedDomains: "sso_verified_domains",
  scimTokens: "sso_scim_tokens",
  scimUsers: "sso_scim_users",
  scimGroups: "sso_scim_groups",
  once: "sso_once",
  sessions: "sso_sessions",
  migrations: "portcullis_sso_migrations",
})

/**
 * The table names for `prefix` (`""` for none), checked: names end up in index and
 * constraint names, so they stay plain identifiers.
 *
 * @example
 * ```ts
 * ssoTables("auth_").domains // "auth_sso_domains"
 * ```
 */
export function ssoTables(prefix = ""): SsoTables {
  if (prefix && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(prefix)) {
    throw new TypeError(`tablePrefix takes letters, digits and _ only, not starting with a digit (got ${JSON.stringify(prefix)})`)
  }
  return Object.fromEntries(Object.entries(DEFAULT_SSO_TABLES).map(([key, name]) => [key, `${prefix}${name}`])) as unknown as SsoTables
}

/**
 * The dialect of a Kysely instance, from its adapter; `undefined` for a dialect Kysely does not ship.
 *
 * @example
 * ```ts
 * detectSsoDialect(createPostgresKysely(url)) // "postgres"
 * ```
 */
export function detectSsoDialect(db: Kysely<any>): SsoSqlDialect | undefined {
  const adapter = db.getExecutor().adapter
  if (adapter instanceof PostgresAdapter) return "postgres"
  if (adapter instanceof MysqlAdapter) return "mysql"
  if (adapter instanceof SqliteAdapter) return "sqlite"
  return undefined
}

/** `given`, or the detected dialect; a `TypeError` naming the option when neither. */
export function resolveSsoDialect(db: Kysely<any>, given?: SsoSqlDialect): SsoSqlDialect {
  const dialect = given ?? detectSsoDialect(db)
  if (!dialect) throw new TypeError("cannot tell this Kysely instance's SQL dialect: pass { dialect: \"postgres\" | \"mysql\" | \"sqlite\" }")
  return dialect
}
