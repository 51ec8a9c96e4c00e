/**
 * Table names and the dialect of the SQL OpenID Provider store.
 * @module
 */
import { MysqlAdapter, PostgresAdapter, SqliteAdapter, type Kysely } from "kysely"

/** The SQL dialects the schema is written for (as `@portcullis/sql-adapter`'s). */
export type OidcProviderSqlDialect = "postgres" | "mysql" | "sqlite"

/** Names of the OpenID Provider tables. */
export interface OidcProviderTables {
  /** Dynamically registered clients (static ones live in the configuration). */
  clients: string
  /** Grants: revoking one is one UPDATE, and every code and refresh token checks its grant. */
  grants: string
  codes: string
  refreshTokens: string
  /** Revoked JWT access tokens by `jti`, until they would have expired anyway. */
  revokedAccessTokens: string
  consents: string
  devices: string
  interactions: string
  signingKeys: string
  /** Keys marked used once until they expire (`useOnce`: a client assertion's `jti`). */
  usedKeys: string
  /** Where applied migrations are recorded (plus `_lock`): apart from the SQL adapter's. */
  migrations: string
}

/** Default table names; `tablePrefix` goes in front of each. */
export const DEFAULT_OIDC_PROVIDER_TABLES: Readonly<OidcProviderTables> = Object.freeze({
  clients: "op_clients",
  grants: "op_grants",
  codes: "op_codes",
  refreshTokens: "op_refresh_tokens",
  revokedAccessTokens: "op_revoked_access_tokens",
  consents: "op_consents",
  devices: "op_devices",
  interactions: "op_interactions",
  signingKeys: "op_signing_keys",
  usedKeys: "op_used_keys",
  migrations: "portcullis_oidc_provider_migrations",
})

/**
 * The table names for `prefix` (`""` for none), checked: names end up in index and
 * constraint names, so they stay plain identifiers.
 *
 * @example
 * ```ts
 * oidcProviderTables("auth_").grants // "auth_op_grants"
 * ```
 */
export function oidcProviderTables(prefix = ""): OidcProviderTables {
  if (prefix && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(prefix)) {
    throw new TypeError(`tablePrefix takes letters, digits and _ only, not starting with a digit (got ${JSON.stringify(prefix)})`)
  }
  return Object.fromEntries(Object.entries(DEFAULT_OIDC_PROVIDER_TABLES).map(([key, name]) => [key, `${prefix}${name}`])) as unknown as OidcProviderTables
}

/**
 * The dialect of a Kysely instance, from its adapter; `undefined` for a dialect Kysely does not ship.
 *
 * @example
 * ```ts
 * detectOidcProviderDialect(createPostgresKysely(url)) // "postgres"
 * ```
 */
export function detectOidcProviderDialect(db: Kysely<any>): OidcProviderSqlDialect | undefined {
  const adapter = db.getExecutor().adapter
  if (adapter instanceof PostgresAdapter) return "postgres"
  if (adapter instanceof MysqlAdapter) return "mysql"
  if (adapter instanceof SqliteAdapter) return "sqlite"
  return undefined
}

/** `given`, or the detected dialect; a `TypeError` naming the option when neither. */
export function resolveOidcProviderDialect(db: Kysely<any>, given?: OidcProviderSqlDialect): OidcProviderSqlDialect {
  const dialect = given ?? detectOidcProviderDialect(db)
  if (!dialect) throw new TypeError("cannot tell this Kysely instance's SQL dialect: pass { dialect: \"postgres\" | \"mysql\" | \"sqlite\" }")
  return dialect
}
